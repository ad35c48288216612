// The subscription a streamed first send opens when its task stops at AUTH_REQUIRED, held for the
// watch that follows on this worker. The watch is an activity on its own queue (20,000 slots that
// sends never wait behind), so it starts only after the send's workflow task and a trip through
// matching; subscribed to by then, the task's first frame is waiting when it starts (5-6 ms of the
// approval, docs/benchmarks.md). On an idle worker the send posts the approval's alert once that
// first frame is in (subscribe first, alert second), so an approval can come before the watch has
// started: until a watch takes the subscription, what the task does next (the resume, its end) is
// told to the workflow from here, and the watch that takes it knows what was told
// (docs/architecture.md).
// A subscription no watch takes (the watch ran on another worker, or the agent's pushes watch the
// task) is closed after ADOPT_WITHIN_MS; at most MAX_HELD are held at once, the oldest closed first.
import type { Client } from '@temporalio/client';
import { InvalidAgentResponseError, type A2AClient, type StreamResponse } from '../a2a';
import { isTerminalState, RemoteTask } from '../workflows/delegated-task/remote-task';
import { observeSignal, type Observation } from '../workflows/delegated-task/messages';
import { observeFrame } from './observe';
import { Reporter } from './reporter';

/**
 * How soon the resume out of a wait (AUTH_REQUIRED or INPUT_REQUIRED → WORKING) is signalled, by
 * the watch (when `coalesce` is longer) or by the subscription held for it: the workflow, the inbox
 * and the UI learn within this that the approval took effect (coalesced like progress, 200 ms
 * later, or never before the end with a longer window), while an agent that ends its task right
 * after (most do, within milliseconds) still costs no signal of its own: the end takes its place.
 */
export const RESUME_REPORT_MS = 50;

/** How long a subscription waits for its watch before it is closed. */
export const ADOPT_WITHIN_MS = 10_000;
const MAX_HELD = 1_000;
/** Frames kept for the watch; a task that says more before any watch takes it is left to the watch's own subscription. */
const MAX_BUFFERED = 500;

/** Tells the workflow of a status the task moved to while no watch reads the subscription. */
export type Tell = (observation: Observation) => Promise<void>;

/** The send's `observe`: signals the run that opened the subscription, within `withinMs` (a slow server must not hold the watch that takes it, which waits for the tells in flight). */
export function createObserveRun(temporal: Client, withinMs = 1_000) {
  return (run: { workflowId: string; runId: string }, o: Observation): Promise<void> =>
    temporal.connection.withAbortSignal(AbortSignal.timeout(withinMs), () => temporal.workflow.getHandle(run.workflowId, run.runId).signal(observeSignal, o));
}

/** What a watch takes: the frames since the subscription opened, and the last observation told to the workflow. */
export interface Taken {
  frames: AsyncIterable<StreamResponse>;
  told?: Observation;
  /** Closes the subscription without reading it. */
  close(): void;
}

/** One held subscription: its frames read into a buffer from the moment it opens, for the watch that takes it. */
class Held {
  /** The last observation told to the workflow. */
  told?: Observation;
  private readonly buffer: StreamResponse[] = [];
  private ended?: { error?: unknown };
  private taken = false;
  /** The view built from the frames, for what is told. */
  private view?: RemoteTask;
  /** Tells the workflow, in order, a resume after RESUME_REPORT_MS (an end within that takes its place). */
  private readonly reporter?: Reporter;
  private tellsOver = false;
  private wake?: () => void;
  private firstSeen!: (frame: StreamResponse | undefined) => void;
  readonly first = new Promise<StreamResponse | undefined>((resolve) => (this.firstSeen = resolve));

  constructor(
    private readonly abort: AbortController,
    private readonly frames: AsyncIterator<StreamResponse>,
    readonly adoptTimer: NodeJS.Timeout,
    tell?: Tell,
  ) {
    this.reporter = tell && new Reporter(async (o) => {
      await tell(o);
      this.told = o;
    }, RESUME_REPORT_MS);
  }

  /** Reads the stream into the buffer until it ends, is closed, or says more than a watch may be handed. */
  async pump(): Promise<void> {
    try {
      for (let next = await this.frames.next(); !next.done; next = await this.frames.next()) {
        if (this.buffer.length >= MAX_BUFFERED) {
          // The watch that takes it finds the stream refused, asks GetTask and subscribes anew.
          this.end();
          throw new InvalidAgentResponseError(`task stream sent more than ${MAX_BUFFERED} frames before a watch read it`);
        }
        this.buffer.push(next.value);
        this.firstSeen(next.value);
        this.see(next.value);
        this.wake?.();
      }
      this.ended = {};
    } catch (error) {
      this.ended = { error };
    } finally {
      this.firstSeen(undefined);
      this.wake?.();
    }
  }

  /**
   * A status the task moved to, told while no watch reads: only when timestamped and newer (the
   * workflow orders it against the watch's by time), and never a new approval round (the watch's
   * to alert); after the first frame that cannot be told, or a tell that failed, nothing more is.
   */
  private see(frame: StreamResponse): void {
    const o = observeFrame(frame, 'stream');
    if (!o) return;
    if (!this.view) {
      this.view = new RemoteTask();
      this.view.apply(o);
      return;
    }
    const before = this.view.timestamp;
    if (!this.view.apply(o) || this.taken || this.tellsOver || !this.reporter) return;
    const state = this.view.state!;
    if (state === 'TASK_STATE_AUTH_REQUIRED' || this.view.timestamp === undefined || before === undefined) return this.stopTelling();
    const told = this.view.observation('stream');
    try {
      if (isTerminalState(state) || state === 'TASK_STATE_INPUT_REQUIRED') void this.reporter.now(told).catch(() => this.stopTelling());
      else this.reporter.later(told);
    } catch {
      this.stopTelling(); // an earlier tell failed: the watch tells the workflow from here
    }
  }

  private stopTelling(): void {
    this.tellsOver = true;
    this.reporter?.drop();
  }

  /** The buffered frames, then the live ones, until the stream ends; its error, if it broke. */
  async *read(): AsyncGenerator<StreamResponse> {
    for (;;) {
      const next = this.buffer.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) {
        if (this.ended.error !== undefined) throw this.ended.error;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /** Taken by a watch: nothing more is told, and the taker waits for the tells in flight, so that it knows everything the workflow was told. */
  async takenBy(): Promise<void> {
    this.taken = true;
    this.reporter?.drop();
    await this.reporter?.settle().catch(() => undefined);
  }

  end(): void {
    this.reporter?.drop();
    this.abort.abort();
    void this.frames.return?.(undefined)?.catch(() => undefined);
  }
}

export class EarlySubscriptions {
  private readonly held = new Map<string, Held>();

  constructor(private readonly adoptWithinMs = ADOPT_WITHIN_MS) {}

  get size(): number {
    return this.held.size;
  }

  /** Subscribes to the task for the watch to come; nothing when one is held for it already. `tell` hears what the task does before a watch takes it. */
  open(client: A2AClient, taskId: string, idleTimeoutMs: number, tell?: Tell): void {
    const key = keyOf(client.url, taskId);
    if (this.held.has(key)) return;
    if (this.held.size >= MAX_HELD) this.close(this.held.keys().next().value!);
    const abort = new AbortController();
    const frames = client.subscribeToTask({ id: taskId }, { signal: abort.signal, idleTimeoutMs })[Symbol.asyncIterator]();
    const timer = setTimeout(() => this.close(key), this.adoptWithinMs);
    timer.unref();
    const held = new Held(abort, frames, timer, tell);
    this.held.set(key, held);
    void held.pump();
  }

  /**
   * The held subscription's first frame, once it has come within `withinMs`: the subscription is
   * up at the agent. Undefined when none is held, it broke, or it is slower than that.
   */
  async firstFrame(client: A2AClient, taskId: string, withinMs: number): Promise<StreamResponse | undefined> {
    const held = this.held.get(keyOf(client.url, taskId));
    if (!held) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), withinMs)));
    try {
      return await Promise.race([held.first, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The subscription held for this task, now the caller's (aborted with `signal`, closed when the
   * caller stops reading), with what was told of it; undefined when none is held.
   */
  async take(client: A2AClient, taskId: string, signal: AbortSignal): Promise<Taken | undefined> {
    const key = keyOf(client.url, taskId);
    const held = this.held.get(key);
    if (!held) return undefined;
    this.held.delete(key);
    clearTimeout(held.adoptTimer);
    const onAbort = (): void => held.end();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    await held.takenBy();
    const close = (): void => {
      signal.removeEventListener('abort', onAbort);
      held.end();
    };
    return {
      told: held.told,
      close,
      frames: {
        async *[Symbol.asyncIterator]() {
          try {
            yield* held.read();
          } finally {
            close();
          }
        },
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
    clearTimeout(held.adoptTimer);
    held.end();
  }
}

const keyOf = (url: string, taskId: string): string => `${url}\n${taskId}`;
