/**
 * A tap on the SDK's SSE responses: notices the first frame (for timing) and
 * can cut the stream right after it (to simulate a connection that drops).
 */
import type { ServerResponse } from 'node:http';
import { field, stringField } from './json';

/** Decides, once per SSE response, whether to cut it after its first frame. */
export interface StreamPolicy {
  cutAfterFirstFrame(frame: string): boolean;
}

/** Cuts the first `count` SSE responses whose first frame shows a task that is still running. */
export function dropFirstStreams(count: number): StreamPolicy {
  let remaining = count;
  return {
    cutAfterFirstFrame(frame) {
      if (remaining <= 0) return false;
      const state = frameTaskState(frame);
      if (state === undefined || TERMINAL_STATES.has(state)) return false;
      remaining -= 1;
      return true;
    },
  };
}

const TERMINAL_STATES = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

/** The task state carried by one SSE frame of either binding, if it carries one. */
export function frameTaskState(frame: string): string | undefined {
  const data = frame
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice('data:'.length).trimStart())
    .join('\n');
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  // JSON-RPC frames keep the envelope; REST frames are the bare StreamResponse.
  const payload = field(parsed, 'result') ?? parsed;
  return stringField(payload, 'task', 'status', 'state') ?? stringField(payload, 'statusUpdate', 'status', 'state');
}

type WriteArgs = [chunk: unknown, encodingOrCallback?: unknown, callback?: unknown];
type Write = (...args: WriteArgs) => boolean;

/** Appends `after` to the write's completion callback, keeping any callback the caller passed. */
function withCompletion(args: WriteArgs, after: () => void): WriteArgs {
  const [chunk, second, third] = args;
  const chain = (callback: unknown) => (error?: Error | null) => {
    if (typeof callback === 'function') callback(error);
    after();
  };
  if (typeof second === 'function') return [chunk, chain(second)];
  if (second !== undefined) return [chunk, second, chain(third)];
  return [chunk, chain(undefined)];
}

/** Stands in for res.write on a stream that is being cut: accepts and forgets. */
const discard: Write = (...args) => {
  const callback = args.find((arg) => typeof arg === 'function');
  if (typeof callback === 'function') process.nextTick(() => callback());
  return true;
};

/**
 * Hooks the first body write of an SSE response. Wrapping `res.write` is the
 * only seam: the SDK writes frames itself and exposes no per-frame hook.
 */
export function onFirstSseFrame(res: ServerResponse, hook: (frame: string) => boolean /* cut? */): void {
  const original = res.write;
  const write = original.bind(res) as Write;
  const patched: Write = (...args) => {
    res.write = original;
    const contentType = res.getHeader('content-type');
    if (typeof contentType !== 'string' || !contentType.startsWith('text/event-stream')) return write(...args);
    const cut = hook(String(args[0]));
    if (!cut) return write(...args);
    const socket = res.socket;
    // Frames written in the same tick would be flushed together with this one; drop them so the
    // client sees exactly one frame, and destroy the socket only once that frame is on the wire.
    res.write = discard as unknown as ServerResponse['write'];
    return write(...withCompletion(args, () => socket?.destroy()));
  };
  res.write = patched as unknown as ServerResponse['write'];
}
