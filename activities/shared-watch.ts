// The worker's shared watch: the SubscribeToTask streams of every approval round parked on this
// worker, held by the process itself instead of by one heartbeating lease each. A round parks here
// after its lease subscribed and had its first look (then the alert goes out): from there on no
// activity is held for it. One hold activity per worker heartbeats for all of them
// (workflows/watch-hub), and that hub workflow keeps the register of parked waits: when this
// process dies, the hold times out and every wait it held is told to lease a watch again.
// Written here rather than borrowed: no library holds many A2A streams and hands them over on a crash.
import { AsyncResource } from 'node:async_hooks';
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { msToNumber } from '@temporalio/common/lib/time';
import type { Logger } from 'pino';
import { A2AError, type A2AClient } from '../a2a';
import { observeSignal, type Observation } from '../workflows/delegated-task/messages';
import { RemoteTask, artifactKey } from '../workflows/delegated-task/remote-task';
import { hubChangesSignal, rewatchSignal, type HubChanges, type ParkedWait, type WatchHubInput } from '../workflows/watch-hub/messages';
import type { AgentDirectory } from './agents';
import { isTimeout } from './failures';
import { observeFrame, observeTask } from './observe';

/** What the lease knows of the task (the workflow's view, `known`): the shared watch reports what differs. */
export type ParkRequest = ParkedWait;

export interface Parking {
  /** The stream's first frame: the lease's first look at the task. */
  first?: Observation;
  /** True when the wait is parked here (registered with the hub workflow); false: the lease keeps watching. */
  parked: boolean;
}

export interface SharedWatchOptions {
  hubId: string;
  /** The queue every worker polls, where the hub workflow and its hand-over run. */
  hubsQueue: string;
  /** The queue only this worker polls, where the hold activity runs. */
  hubQueue: string;
  heartbeatTimeout: WatchHubInput['heartbeatTimeout'];
  /** At most this many parked streams; a round beyond them keeps its own lease. */
  max: number;
}

/** How long the first frame of a parking stream may take before the lease watches by itself instead. */
const FIRST_FRAME_MS = 10_000;
/**
 * Registrations that arrive within this long travel in one signal. Each signal is four events of
 * the hub's history, which a hand-over replays first: at 50 ms, 5,000 waits parked at 45 a second
 * made 5,604 events and 3 s of replay after a SIGKILL (docs/benchmarks.md); a lease returns this
 * much later, once its wait is registered.
 */
const BATCH_MS = 500;
/** Streams a hand-over opens at once. */
const ADOPT_LANES = 64;

/** What the register keeps of a parked wait: the status it was parked in, not its artifacts. */
function registered(req: ParkRequest): ParkedWait {
  const { idleTimeout, pollMax } = req.policy;
  return { ...req, known: { ...req.known, artifacts: [] }, policy: { idleTimeout, pollMax } };
}

export class SharedWatch {
  private readonly streams = new Map<string, ParkedStream>();
  private batch?: { changes: HubChanges; done: Promise<void> };
  /** Batches made and not yet delivered to the hub workflow. */
  private undelivered = 0;
  private closed = false;
  /**
   * The async context the streams run in: the worker's, taken here at its start. A stream opened
   * from inside an activity would otherwise carry that activity's context (its info, loggers,
   * abort controller) in every promise, timer and socket of the stream for as long as it is held,
   * which is days after the activity ended.
   */
  private readonly outsideActivities = new AsyncResource('a2a-planner.SharedWatch');

  constructor(
    private readonly agents: AgentDirectory,
    private readonly temporal: Client,
    readonly options: SharedWatchOptions,
    /** The worker's logger: a stream's lines belong to no activity. */
    readonly logger: Logger,
  ) {}

  /** Runs `fn` in the worker's context rather than the calling activity's (`outsideActivities`). */
  detached<T>(fn: () => T): T {
    return this.outsideActivities.runInAsyncScope(fn);
  }

  get size(): number {
    return this.streams.size;
  }

  /**
   * No stream held, and the hub workflow told of every end: only then may the hold say 'empty'
   * (the hub hands whatever its register still names over, and a wait whose end was still on its
   * way would be adopted after it ended and told to lease a watch again).
   */
  get empty(): boolean {
    return this.streams.size === 0 && this.undelivered === 0;
  }

  get hubWorkflowId(): string {
    return `watch-hub/${this.options.hubId}`;
  }

  /** Subscribes, waits for the first frame, and parks the wait unless the task has moved already. */
  async park(req: ParkRequest, client: A2AClient): Promise<Parking> {
    if (this.closed || this.streams.size >= this.options.max) return { parked: false };
    const stream = this.open(req, client, false);
    const first = await stream.start();
    if (!first || stream.moved) {
      this.forget(stream);
      return { first, parked: false };
    }
    try {
      await this.record({ parked: [registered(req)], ended: [] });
      return { first, parked: true };
    } catch (err) {
      this.logger.warn({ workflowId: req.workflowId, error: String(err) }, 'the watch hub did not take a parked wait; its lease keeps watching');
      this.forget(stream);
      return { first, parked: false };
    }
  }

  /**
   * Takes over the waits of a dead worker's hub: a stream each, registered with this worker's hub;
   * a task that moved meanwhile is told to its workflow at once. Returns the waits it could not
   * take (no room, no first frame): those lease a watch again.
   */
  async adopt(waits: ParkedWait[], progress: () => void): Promise<ParkedWait[]> {
    const refused: ParkedWait[] = [];
    const notAdopted = (w: ParkedWait, err: unknown): void => {
      this.logger.warn({ workflowId: w.workflowId, error: String(err) }, 'could not adopt a parked wait; it leases a watch again');
      refused.push(w);
    };
    // Awaited once every stream is open: a lane that waited for each wait's batch (BATCH_MS and a
    // signal) would open one stream per batch (5,000 streams took 6.5 s with 64 lanes at 50 ms).
    const registered: Promise<void>[] = [];
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < waits.length) {
        const w = waits[next++]!;
        progress();
        if (this.closed || this.streams.size >= this.options.max) {
          refused.push(w);
          continue;
        }
        try {
          const stream = this.open(w, await this.agents.client(w.agent), true);
          if (!(await stream.start())) {
            this.forget(stream);
            refused.push(w);
          } else if (!stream.moved) registered.push(this.record({ parked: [w], ended: [] }).catch((err: unknown) => notAdopted(w, err)));
        } catch (err) {
          notAdopted(w, err);
        }
      }
    };
    await Promise.all(Array.from({ length: ADOPT_LANES }, lane));
    await Promise.all(registered);
    return refused;
  }

  /** A stream that cannot go on (GetTask failed, the agent is down, the task is lost): its wait leases a watch again, which knows how to report that. */
  handBack(stream: ParkedStream): void {
    if (!this.streams.has(stream.req.workflowId)) return;
    const { workflowId, watchId } = stream.req;
    this.ended(stream);
    void this.temporal.workflow
      .getHandle(workflowId)
      .signal(rewatchSignal, { watchId })
      .catch((err: unknown) => this.logger.warn({ workflowId, error: String(err) }, 'a parked wait was not told to lease a watch again; its backstop poll remains'));
  }

  /** A stream that ended (the task moved, or its workflow is gone): dropped here and in the register. */
  ended(stream: ParkedStream): void {
    if (!this.forget(stream)) return;
    const { workflowId, watchId } = stream.req;
    this.record({ parked: [], ended: [{ workflowId, watchId }] }).catch((err: unknown) => this.logger.warn({ workflowId, error: String(err) }, 'watch hub not told of an ended wait'));
  }

  /** Stops every stream (the worker is shutting down; the hub workflow hands the waits over). */
  close(): void {
    this.closed = true;
    for (const s of this.streams.values()) s.stop();
    this.streams.clear();
  }

  /** The wait's stream, replacing one this worker already holds for the same workflow (an older lease's). */
  private open(req: ParkRequest, client: A2AClient, adopted: boolean): ParkedStream {
    this.streams.get(req.workflowId)?.stop();
    const stream = new ParkedStream(req, client, this, adopted);
    this.streams.set(req.workflowId, stream);
    return stream;
  }

  private forget(stream: ParkedStream): boolean {
    stream.stop();
    if (this.streams.get(stream.req.workflowId) !== stream) return false;
    this.streams.delete(stream.req.workflowId);
    return true;
  }

  /** One signal-with-start per batch: the hub workflow is started by the first wait parked here. */
  private record(changes: HubChanges): Promise<void> {
    if (!this.batch) {
      const batch = { changes: { parked: [], ended: [] } as HubChanges, done: Promise.resolve() };
      this.undelivered++;
      batch.done = new Promise<void>((resolve) => setTimeout(resolve, BATCH_MS))
        .then(async () => {
          this.batch = undefined;
          const input: WatchHubInput = { hubId: this.options.hubId, hubQueue: this.options.hubQueue, heartbeatTimeout: this.options.heartbeatTimeout };
          await this.temporal.workflow.signalWithStart('WatchHubWorkflow', {
            workflowId: this.hubWorkflowId,
            taskQueue: this.options.hubsQueue,
            args: [input],
            signal: hubChangesSignal,
            signalArgs: [batch.changes],
          });
        })
        .finally(() => this.undelivered--);
      this.batch = batch;
    }
    this.batch.changes.parked.push(...changes.parked);
    this.batch.changes.ended.push(...changes.ended);
    return this.batch.done;
  }

  /** Signals a parked wait's workflow; false when the workflow is gone. Retries while Temporal is unreachable. */
  async tell(workflowId: string, o: Observation, stopped: () => boolean): Promise<boolean> {
    let backoffMs = 500;
    for (;;) {
      try {
        await this.temporal.workflow.getHandle(workflowId).signal(observeSignal, o);
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        if (stopped()) return false;
        this.logger.warn({ workflowId, error: String(err) }, 'could not tell a parked wait of its task; retrying');
        await delay(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 30_000);
      }
    }
  }
}

/** One parked approval round's stream: reports every change, and ends when the task leaves the round. */
class ParkedStream {
  private readonly abort = new AbortController();
  private readonly view: RemoteTask;
  private readonly rounds: number;
  private reportedKey: string;
  moved = false;

  constructor(
    readonly req: ParkRequest,
    private readonly client: A2AClient,
    private readonly hub: SharedWatch,
    /** Taken over from a dead worker: no lease looks at the first frame, so a move is told here. */
    private readonly adopted = false,
  ) {
    this.view = RemoteTask.from(req.known);
    this.rounds = req.known.authEntries;
    this.reportedKey = this.key();
  }

  /** Starts the stream; resolves with its first frame (undefined: none came, the lease watches instead). */
  start(): Promise<Observation | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), FIRST_FRAME_MS);
      const first = (o: Observation | undefined): void => {
        clearTimeout(timer);
        resolve(o);
      };
      // The catch too: its promise waits as long as the stream, in the context it was made in.
      this.hub.detached(() =>
        void this.run(first).catch((err: unknown) => {
          first(undefined);
          if (this.abort.signal.aborted) return;
          this.hub.logger.info({ workflowId: this.req.workflowId, error: String(err) }, 'a parked stream cannot go on; its wait leases a watch again');
          this.hub.handBack(this);
        }),
      );
    });
  }

  stop(): void {
    this.abort.abort();
  }

  private async run(first: (o: Observation | undefined) => void): Promise<void> {
    const { signal } = this.abort;
    const idleMs = msToNumber(this.req.policy.idleTimeout);
    let backoffMs = 0;
    let started = false;
    while (!signal.aborted) {
      const before = this.key();
      let idle = false;
      try {
        for await (const frame of this.client.subscribeToTask({ id: this.req.taskId }, { signal, idleTimeoutMs: idleMs })) {
          const o = observeFrame(frame, 'stream');
          if (!o) continue;
          if (!started) {
            // The first frame is the lease's look: it decides (and alerts) with it, so nothing is
            // told here, unless the stream was adopted and the task moved while nobody watched.
            started = true;
            this.view.apply(o);
            this.moved = this.hasMoved();
            first({ ...this.view.observation('stream'), watchId: this.req.watchId, first: true });
            if (this.adopted && this.moved) return void (await this.report());
            this.reportedKey = this.key();
            if (this.moved) return;
            continue;
          }
          if (await this.see(o)) return;
        }
      } catch (err) {
        if (signal.aborted) return;
        if (!started) throw err; // the lease watches by itself instead
        if (!(err instanceof A2AError)) throw err;
        idle = isTimeout(err, 'idle');
      }
      if (!started) throw new Error('the subscription closed before its first frame');
      // Closed, stalled or refused: GetTask decides, then subscribe again (backing off while nothing
      // changes). A GetTask that fails hands the wait back to a lease (run's caller), which retries,
      // reports an unreachable agent and fails a lost task as it always has.
      const task = await this.client.getTask({ id: this.req.taskId, historyLength: 0 }, { signal });
      if (await this.see(observeTask(task, 'poll'))) return;
      // A silent stream ended by its idle timeout is subscribed again at once; one that keeps closing, less and less often.
      backoffMs = this.key() === before && !idle ? Math.min(Math.max(backoffMs * 2, 500), msToNumber(this.req.policy.pollMax)) : 0;
      if (backoffMs > 0) await delay(backoffMs, signal);
    }
  }

  /** Merges one observation and tells the workflow of a change; true when the stream is done. */
  private async see(o: Observation): Promise<boolean> {
    this.view.apply(o);
    if (this.key() !== this.reportedKey) return this.report();
    return this.hasMoved() ? this.end() : false;
  }

  /** Tells the workflow what the stream sees; true when the stream is done (moved, or nobody to tell). */
  private async report(): Promise<boolean> {
    this.reportedKey = this.key();
    const told = await this.hub.tell(this.req.workflowId, { ...this.view.observation('stream'), watchId: this.req.watchId }, () => this.abort.signal.aborted);
    return !told || this.hasMoved() ? this.end() : false;
  }

  private end(): true {
    this.hub.ended(this);
    return true;
  }

  /** The task left this approval round: the workflow acts, with a lease of its own from here. */
  private hasMoved(): boolean {
    const v = this.view;
    return v.terminal || v.state !== 'TASK_STATE_AUTH_REQUIRED' || v.authEntries > this.rounds;
  }

  private key(): string {
    const v = this.view;
    return `${v.state}|${v.timestamp}|${v.text}|${artifactKey(v.artifactList)}`;
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** The hub's two activities: the hold (on the worker's own queue) and the hand-over (anywhere). */
export function createWatchHubActivities(temporal: Client, shared: SharedWatch | undefined) {
  return {
    /**
     * Heartbeats for every stream this worker holds, for `holdMs` or until it holds none ('empty');
     * fails when the worker dies or stops, and the hub workflow hands its waits over.
     */
    async holdWatchHub({ hubId, holdMs }: { hubId: string; holdMs: number }): Promise<'lease' | 'empty'> {
      const ctx = Context.current();
      if (!shared || shared.options.hubId !== hubId) throw new Error(`this worker holds no watch hub ${hubId}`);
      const end = Date.now() + holdMs;
      while (Date.now() < end) {
        if (shared.empty) return 'empty';
        ctx.heartbeat(shared.size);
        await ctx.sleep(Math.min(1_000, end - Date.now()));
      }
      return 'lease';
    },
    /**
     * Takes a dead hub's waits into this worker's shared watch, and tells those it cannot take to
     * lease a watch again. A retry adopts them all again: a wait adopted twice keeps one stream.
     */
    async handOverWatches({ waits }: { hubId: string; waits: ParkedWait[] }): Promise<void> {
      const ctx = Context.current();
      // A heartbeat per wait crossed into the SDK's native side 5,000 times (~4 % of the adoption's
      // CPU in a profile): one every 500 ms tells Temporal the same.
      let lastBeat = 0;
      const beat = (): void => {
        if (Date.now() - lastBeat < 500) return;
        lastBeat = Date.now();
        ctx.heartbeat();
      };
      const refused = shared ? await shared.adopt(waits, beat) : waits;
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < refused.length) {
          const w = refused[next++]!;
          try {
            await temporal.workflow.getHandle(w.workflowId).signal(rewatchSignal, { watchId: w.watchId });
          } catch (err) {
            if (!(err instanceof WorkflowNotFoundError)) throw err;
          }
          beat();
        }
      };
      await Promise.all(Array.from({ length: 16 }, lane));
    },
  };
}
