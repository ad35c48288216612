/**
 * Server-Sent Events reader (WHATWG "event stream" parsing) for both A2A bindings.
 *
 * It works on bytes, not strings: CR and LF never occur inside a UTF-8 multi-byte sequence, so
 * lines can be cut on raw bytes and decoded whole, which keeps a character split across two
 * chunks intact and lets the frame-size cap count real bytes.
 *
 * Guarantees, whatever the exit path (end of stream, error, idle timeout, abort, or the
 * consumer leaving a for-await early): the source is released exactly once, and no promise is
 * left to reject unobserved.
 */

export interface SseEvent {
  /** `event:` field; "message" when absent. a2a-js sends `error` for mid-stream errors. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  /** Last `id:` seen (it persists across events, per the SSE spec). */
  id?: string;
}

export interface SseReadOptions {
  /** Largest event (sum of its lines, in bytes) accepted. Default 4 MiB. */
  maxFrameBytes?: number;
  /** Largest whole stream (every byte, comments included) accepted. Default: no cap. */
  maxStreamBytes?: number;
  /** Fail when no bytes at all (not even a comment) arrive for this long. 0 or unset: never. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Releases the underlying connection. Defaults to `source.destroy()` when the source is a
   * stream, else the iterator's `return()`.
   */
  release?: () => void;
}

export type SseReadErrorKind = 'frame-too-large' | 'stream-too-large' | 'idle' | 'aborted' | 'truncated';

/** Raised by the reader; errors/transport.ts turns it into the matching A2AError. */
export class SseReadError extends Error {
  override readonly name = 'SseReadError';
  constructor(
    readonly kind: SseReadErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

export async function* readSse(source: AsyncIterable<Uint8Array>, opts: SseReadOptions = {}): AsyncGenerator<SseEvent, void, undefined> {
  const maxBytes = opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const idleMs = opts.idleTimeoutMs ?? 0;
  const maxStream = opts.maxStreamBytes ?? 0;
  let streamBytes = 0;
  const signal = opts.signal;
  const it = source[Symbol.asyncIterator]();

  let partial: Uint8Array[] = []; // bytes of the line being received
  let partialBytes = 0;
  let skipLeadingLF = false; // the previous chunk ended in CR; a LF now belongs to it
  let data: string[] = [];
  let frameBytes = 0; // bytes of the completed lines of the current event
  let eventType = '';
  let lastId: string | undefined;

  const tooLarge = (): SseReadError =>
    new SseReadError('frame-too-large', `stream frame larger than ${maxBytes} bytes (maxFrameBytes)`);

  /** Applies one complete line; returns an event when the line was the blank dispatch line. */
  const takeLine = (line: Buffer): SseEvent | undefined => {
    if (line.length === 0) {
      const ev: SseEvent | undefined =
        data.length > 0 ? { event: eventType || 'message', data: data.join('\n'), ...(lastId !== undefined ? { id: lastId } : {}) } : undefined;
      data = [];
      frameBytes = 0;
      eventType = '';
      return ev;
    }
    if (line[0] === 0x3a /* ':' comment, used as keep-alive */) return undefined;
    frameBytes += line.length + 1;
    const text = line.toString('utf8');
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') eventType = value;
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    // `retry` and unknown fields are ignored, as the spec asks.
    return undefined;
  };

  try {
    for (;;) {
      const r = await nextChunk(it, idleMs, signal);
      if (r.done) break;
      const chunk = r.value;
      streamBytes += chunk.length;
      if (maxStream > 0 && streamBytes > maxStream) {
        throw new SseReadError('stream-too-large', `stream larger than ${maxStream} bytes in all (maxStreamBytes)`);
      }
      let start = 0;
      if (skipLeadingLF && chunk.length > 0) {
        if (chunk[0] === LF) start = 1;
        skipLeadingLF = false;
      }
      const events: SseEvent[] = [];
      for (let i = start; i < chunk.length; i++) {
        const b = chunk[i];
        if (b !== LF && b !== CR) continue;
        const piece = chunk.subarray(start, i);
        if (partialBytes + piece.length + frameBytes > maxBytes) throw tooLarge();
        const line = partialBytes === 0 ? Buffer.from(piece) : Buffer.concat([...partial, piece]);
        partial = [];
        partialBytes = 0;
        const ev = takeLine(line);
        if (ev) events.push(ev);
        if (b === CR) {
          if (i + 1 < chunk.length) {
            if (chunk[i + 1] === LF) i++;
          } else {
            skipLeadingLF = true;
          }
        }
        start = i + 1;
      }
      if (start < chunk.length) {
        const rest = chunk.subarray(start);
        partial.push(rest);
        partialBytes += rest.length;
        // Checked on every chunk, so a huge frame fails as soon as it passes the cap rather
        // than after we buffered all of it.
        if (partialBytes + frameBytes > maxBytes) throw tooLarge();
      }
      for (const ev of events) yield ev;
    }
    const pendingIsComment = partialBytes > 0 && partial[0]?.[0] === 0x3a;
    if ((partialBytes > 0 && !pendingIsComment) || data.length > 0) {
      throw new SseReadError('truncated', `stream ended in the middle of a frame (${partialBytes + frameBytes} bytes pending)`);
    }
  } finally {
    release(source, it, opts.release);
  }
}

function hasDestroy(x: object): x is { destroy: () => void } {
  return typeof (x as { destroy?: unknown }).destroy === 'function';
}

function release(source: AsyncIterable<Uint8Array>, it: AsyncIterator<Uint8Array>, custom?: () => void): void {
  try {
    if (custom) custom();
    else if (hasDestroy(source)) source.destroy();
    else void it.return?.()?.catch(() => undefined);
  } catch {
    // Releasing is best effort; the stream is already finished from the caller's view.
  }
}

/**
 * `it.next()`, raced against the idle timer and the abort signal. When the race is lost the
 * pending `next()` is left with a handler attached, so releasing the source (which rejects it)
 * cannot become an unhandled rejection.
 */
function nextChunk(it: AsyncIterator<Uint8Array>, idleMs: number, signal: AbortSignal | undefined): Promise<IteratorResult<Uint8Array>> {
  if (signal?.aborted) return Promise.reject(new SseReadError('aborted', 'aborted'));
  const pending = it.next();
  if (idleMs <= 0 && !signal) return pending;
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      cleanup();
      reject(new SseReadError('aborted', 'aborted'));
    };
    const cleanup = (): void => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    if (idleMs > 0) {
      timer = setTimeout(() => {
        cleanup();
        reject(new SseReadError('idle', `stream idle for ${idleMs} ms`));
      }, idleMs);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (v) => {
        cleanup();
        resolve(v);
      },
      (e: unknown) => {
        cleanup();
        reject(e);
      },
    );
  });
}
