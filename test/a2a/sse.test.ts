/** The SSE reader on crafted chunk splits, fed from real Node streams. */
import { PassThrough, Readable } from 'node:stream';
import { readSse, SseReadError, type SseEvent } from '../../a2a';

function source(chunks: (string | Buffer)[]): Readable {
  return Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c, 'utf8') : c)));
}

/** Every way of cutting `text` into two chunks, plus one byte at a time. */
function splits(text: string): Buffer[][] {
  const b = Buffer.from(text, 'utf8');
  const out: Buffer[][] = [];
  for (let i = 0; i <= b.length; i++) out.push([b.subarray(0, i), b.subarray(i)]);
  out.push([...b].map((x) => Buffer.from([x])));
  return out;
}

async function events(src: AsyncIterable<Uint8Array>, opts: Parameters<typeof readSse>[1] = {}): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of readSse(src, opts)) out.push(ev);
  return out;
}

async function failure(src: AsyncIterable<Uint8Array>, opts: Parameters<typeof readSse>[1] = {}): Promise<SseReadError> {
  try {
    await events(src, opts);
  } catch (e) {
    if (e instanceof SseReadError) return e;
    throw e;
  }
  throw new Error('expected the reader to fail');
}

describe('readSse', () => {
  test('LF, CRLF and CR line ends, at every split point', async () => {
    for (const text of ['data: a\n\ndata: b\n\n', 'data: a\r\n\r\ndata: b\r\n\r\n', 'data: a\r\rdata: b\r\r', 'data: a\r\n\rdata: b\n\r\n']) {
      for (const chunks of splits(text)) {
        expect((await events(Readable.from(chunks))).map((e) => e.data)).toEqual(['a', 'b']);
      }
    }
  });

  test('multi-line data, comments, event names, ids and unknown fields', async () => {
    const text = ': keep-alive\n\nevent: error\ndata: {"a":\ndata:1}\nid: 42\nretry: 5\nfoo: bar\n\n: ping\ndata:  two spaces\n\ndata\n\n';
    for (const chunks of splits(text)) {
      const evs = await events(Readable.from(chunks));
      expect(evs).toEqual([
        { event: 'error', data: '{"a":\n1}', id: '42' },
        { event: 'message', data: ' two spaces', id: '42' },
        { event: 'message', data: '', id: '42' },
      ]);
    }
  });

  test('a multi-byte character split across chunks survives', async () => {
    for (const chunks of splits('data: héllo € 🚀\n\n')) {
      expect((await events(Readable.from(chunks)))[0]?.data).toBe('héllo € 🚀');
    }
  });

  test('frame-size cap: one long line, or many lines adding up, fail as soon as the cap is passed', async () => {
    const long = source(['data: ', 'x'.repeat(100), '\n\n']);
    expect((await failure(long, { maxFrameBytes: 64 })).kind).toBe('frame-too-large');
    expect(long.destroyed).toBe(true);

    const many = source([...Array.from({ length: 20 }, () => 'data: 0123456789\n'), '\n']);
    expect((await failure(many, { maxFrameBytes: 100 })).kind).toBe('frame-too-large');

    // Each event is under the cap; the cap is per event, not per stream.
    const ok = source(Array.from({ length: 20 }, () => 'data: 0123456789\n\n'));
    expect(await events(ok, { maxFrameBytes: 40 })).toHaveLength(20);
  });

  test('a stream ending inside a frame is reported as truncated; a trailing comment is not', async () => {
    expect((await failure(source(['data: {"x":1}']))).kind).toBe('truncated');
    expect((await failure(source(['data: {"x":1}\n']))).kind).toBe('truncated');
    expect(await events(source(['data: a\n\n: bye']))).toHaveLength(1);
  });

  test('idle timeout: silence fails the read and releases the source; traffic resets the timer', async () => {
    const silent = new PassThrough();
    const started = Date.now();
    const e = await failure(silent, { idleTimeoutMs: 100 });
    expect(e.kind).toBe('idle');
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(silent.destroyed).toBe(true);

    const chatty = new PassThrough();
    const timer = setInterval(() => chatty.write(': ping\n'), 30);
    setTimeout(() => {
      clearInterval(timer);
      chatty.end('\ndata: done\n\n');
    }, 250);
    expect((await events(chatty, { idleTimeoutMs: 100 })).map((x) => x.data)).toEqual(['done']);
  });

  test('abort through the signal releases the source', async () => {
    const s = new PassThrough();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    expect((await failure(s, { signal: ac.signal })).kind).toBe('aborted');
    expect(s.destroyed).toBe(true);

    const already = new PassThrough();
    expect((await failure(already, { signal: AbortSignal.abort() })).kind).toBe('aborted');
    expect(already.destroyed).toBe(true);
  });

  test('leaving for-await early releases the source', async () => {
    const s = new PassThrough();
    s.write('data: 1\n\ndata: 2\n\n');
    for await (const ev of readSse(s)) {
      expect(ev.data).toBe('1');
      break;
    }
    expect(s.destroyed).toBe(true);
  });

  test('a failing source propagates its error, and a custom release runs exactly once', async () => {
    const s = new PassThrough();
    let released = 0;
    setTimeout(() => s.destroy(new Error('socket hang up')), 20);
    await expect(events(s, { release: () => void released++ })).rejects.toThrow('socket hang up');
    expect(released).toBe(1);
  });
});
