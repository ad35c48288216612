// The subscription a streamed first send opens when its task stops at AUTH_REQUIRED, held for the
// watch that follows on this worker. The watch is an activity on its own queue (20,000 slots that
// sends never wait behind), so it starts only after the send's workflow task and a trip through
// matching; subscribed to by then, the task's first frame is waiting when it starts, and its
// alert goes out without a SubscribeToTask round trip of its own (docs/benchmarks.md: 5-6 ms of
// the approval). Subscribe first, alert second still holds: the watch alerts, after that frame.
// A subscription no watch takes (the watch ran on another worker, or the agent's pushes watch the
// task) is closed after ADOPT_WITHIN_MS; at most MAX_HELD are held at once, the oldest closed first.
import type { A2AClient, StreamResponse } from '../a2a';

/** How long a subscription waits for its watch before it is closed. */
export const ADOPT_WITHIN_MS = 10_000;
const MAX_HELD = 1_000;

interface Held {
  abort: AbortController;
  frames: AsyncIterator<StreamResponse>;
  /** The first frame, asked for at once so that it is on its way before the watch starts. */
  first: Promise<IteratorResult<StreamResponse>>;
  timer: NodeJS.Timeout;
}

export class EarlySubscriptions {
  private readonly held = new Map<string, Held>();

  constructor(private readonly adoptWithinMs = ADOPT_WITHIN_MS) {}

  get size(): number {
    return this.held.size;
  }

  /** Subscribes to the task for the watch to come; nothing when one is held for it already. */
  open(client: A2AClient, taskId: string, idleTimeoutMs: number): void {
    const key = keyOf(client.url, taskId);
    if (this.held.has(key)) return;
    if (this.held.size >= MAX_HELD) this.close(this.held.keys().next().value!);
    const abort = new AbortController();
    const frames = client.subscribeToTask({ id: taskId }, { signal: abort.signal, idleTimeoutMs })[Symbol.asyncIterator]();
    const first = frames.next();
    first.catch(() => undefined); // a refused or broken subscription is the watch's to meet, when it takes it
    const timer = setTimeout(() => this.close(key), this.adoptWithinMs);
    timer.unref();
    this.held.set(key, { abort, frames, first, timer });
  }

  /**
   * The subscription held for this task, now the caller's (aborted with `signal`, closed when the
   * caller stops reading); undefined when none is held.
   */
  take(client: A2AClient, taskId: string, signal: AbortSignal): AsyncIterable<StreamResponse> | undefined {
    const key = keyOf(client.url, taskId);
    const held = this.held.get(key);
    if (!held) return undefined;
    this.held.delete(key);
    clearTimeout(held.timer);
    const onAbort = (): void => held.abort.abort();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return {
      async *[Symbol.asyncIterator]() {
        try {
          for (let next = await held.first; !next.done; next = await held.frames.next()) yield next.value;
        } finally {
          signal.removeEventListener('abort', onAbort);
          end(held);
        }
      },
    };
  }

  /** Closes every subscription held (the worker is stopping). */
  closeAll(): void {
    for (const key of [...this.held.keys()]) this.close(key);
  }

  private close(key: string): void {
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    clearTimeout(held.timer);
    end(held);
  }
}

/** Aborts the request and lets the client's stream finish its own cleanup. */
function end(held: Held): void {
  held.abort.abort();
  void held.frames.return?.(undefined)?.catch(() => undefined);
}

const keyOf = (url: string, taskId: string): string => `${url}\n${taskId}`;
