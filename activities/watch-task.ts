// Watches a remote task for one lease and tells the workflow only what changed. It holds a
// SubscribeToTask stream, or polls GetTask (agents that cannot stream, streams that keep breaking,
// push backstops). A closed or refused stream never ends the watch: GetTask decides, then subscribe
// again. It returns when the workflow must act (terminal, a new question, a new approval round) or
// when the lease is over; changes that need no action (WORKING, artifacts) are signalled, coalesced,
// except the resume out of a wait (an approval or an answer took effect), which is signalled soon.
// On AUTH_REQUIRED it also posts the alert, after its first look at the task: subscribe first, alert
// second, with no round trip through the workflow in between.
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { A2AError, TaskNotFoundError, type A2AClient, type TaskState } from '../a2a';
import type { AgentRef, WatchPolicy } from '../workflows/delegated-task/input';
import { observeSignal, type Observation, type WatchProblem } from '../workflows/delegated-task/messages';
import { RemoteTask, artifactKey, type RemoteTaskSnapshot } from '../workflows/delegated-task/remote-task';
import type { AgentDirectory } from './agents';
import { inTheAgentsWords, type Alert } from './alert-operator';
import { isTimeout, remoteTaskLost, withTypedFailures } from './failures';
import { observeFrame, observeTask } from './observe';
import { ensurePushConfig } from './push-config';
import type { PushSettings } from './push-token';
import type { Parking, SharedWatch } from './shared-watch';
import { RESUME_REPORT_MS, type EarlySubscriptions } from './early-subscriptions';
import { Reporter } from './reporter';

export interface WatchInput {
  agent: AgentRef;
  taskId: string;
  /** Names this watch in its signals; the workflow ignores signals of any other (a zombie's). */
  watchId: string;
  /** What the workflow knows; the watch reports only what differs from it. */
  known: { state?: TaskState; timestamp?: string; text?: string; artifacts: string };
  policy: WatchPolicy;
  /** Return `lease` after this long with nothing to act on; the workflow renews the watch. */
  leaseMs: number;
  /** AUTH_REQUIRED: the alert to post once the watch has looked at the task and it still waits. */
  alert?: Alert & { round: number };
  /** Register (or find) the planner's push config when the agent supports push. */
  push: boolean;
  /** The push config the workflow already knows of. */
  pushConfigId?: string;
  /**
   * An approval round's lease: once push is registered, look once (and alert), then return
   * `parked`: the agent's pushes are the watch and the workflow keeps only a backstop poll, so a
   * wait of a week holds no activity and sends no heartbeats. An agent that streams but does not
   * push parks on the worker's shared watch instead (activities/shared-watch.ts): its stream is
   * held by the worker, whose one heartbeat stands for all of them.
   */
  parkOnPush?: boolean;
}

export interface WatchResult {
  /** act: the workflow must act; lease: the lease ran out; parked: push or the worker's shared watch watches the task now (parkOnPush). */
  reason: 'act' | 'lease' | 'parked';
  /** What the watch saw last, when it differs from what the workflow already has. */
  observation?: Observation;
  /** The approval round whose alert was posted. */
  alerted?: number;
  pushConfigId?: string;
}

export type AlertFn = (alert: Alert) => Promise<void>;

/** How long a watch taking a subscription whose end the workflow was told waits for the run's end to cancel it. */
const TOLD_END_WAIT_MS = 30_000;

/** Thrown inside the loop when the lease is over or the workflow must act. */
class Done {
  constructor(readonly reason: 'act' | 'lease') {}
}

export function createWatchRemoteTask(agents: AgentDirectory, temporal: Client, alertOperator: AlertFn, push: PushSettings | undefined, shared: SharedWatch | undefined, early?: EarlySubscriptions) {
  return async function watchRemoteTask(input: WatchInput): Promise<WatchResult> {
    return withTypedFailures(async () => {
      const ctx = Context.current();
      const workflowId = ctx.info.workflowExecution?.workflowId;
      if (!workflowId) throw new Error('watchRemoteTask runs only as a workflow activity');
      const heartbeatEvery = Math.max(500, Math.floor((ctx.info.heartbeatTimeoutMs ?? 60_000) / 3));
      const ticker = setInterval(() => ctx.heartbeat(), heartbeatEvery);
      // An approval round's lease holds its stream no longer than a first lease, then parks it on
      // the shared watch: a quick approval costs what it did, a long wait no heartbeats of its own.
      const client = await agents.client(input.agent);
      const hub = input.parkOnPush && streams(input.policy, client) ? shared : undefined;
      const leaseMs = hub ? Math.min(input.leaseMs, msToNumber(input.policy.firstLease)) : input.leaseMs;
      const watch = new Watch({ ...input, leaseMs }, client, temporal.workflow.getHandle(workflowId), alertOperator, early);
      const park = hub && ((known: RemoteTaskSnapshot) => hub.park({ workflowId, watchId: input.watchId, agent: input.agent, taskId: input.taskId, known, policy: input.policy }, watch.client));
      try {
        const pushConfigId = input.push && push && watch.client.card.capabilities.pushNotifications === true
          ? await ensurePushConfig(watch.client, push, workflowId, input.taskId)
          : undefined;
        // The workflow must learn of a new config even if this watch is cancelled: it deletes it at the end.
        if (pushConfigId && pushConfigId !== input.pushConfigId) await watch.tell({ pushConfigId });
        const reason = await watch.run(pushConfigId !== undefined, park);
        return { reason, observation: watch.result(), alerted: watch.alerted, pushConfigId };
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw new CancelledFailure('watch cancelled');
        throw err;
      } finally {
        clearInterval(ticker);
        watch.stop();
      }
    });
  };
}

class Watch {
  readonly view: RemoteTask;
  alerted?: number;
  private readonly reporter: Reporter;
  /** The view last scheduled for a signal, and the one the workflow has (known, signalled or returned). */
  private reportedKey: string;
  private sentKey: string;
  private readonly deadline: number;
  private failing?: { since: number; error: string; reported: boolean };

  constructor(
    private readonly input: WatchInput,
    readonly client: A2AClient,
    workflow: { signal(def: typeof observeSignal, o: Observation): Promise<void> },
    private readonly alertOperator: AlertFn,
    /** The subscription the first send may have opened for this watch. */
    private readonly early?: EarlySubscriptions,
  ) {
    const k = input.known;
    this.view = RemoteTask.from({ taskId: input.taskId, state: k.state, timestamp: k.timestamp, text: k.text, version: 0, authEntries: 0, artifacts: [] });
    this.reportedKey = this.keyOf(k.artifacts);
    this.sentKey = this.reportedKey;
    this.deadline = Date.now() + input.leaseMs;
    this.reporter = new Reporter(async (o) => {
      try {
        await workflow.signal(observeSignal, o);
        this.sentKey = keyOfObservation(o);
      } catch (err) {
        // The workflow has closed: nobody is left to watch for.
        if (err instanceof WorkflowNotFoundError) throw new CancelledFailure('workflow closed');
        throw err;
      }
    }, Math.max(0, msToNumber(input.policy.coalesce)));
  }

  stop(): void {
    this.reporter.drop();
  }

  /** Signals at once, together with the current view. */
  tell(extra: Partial<Observation>): Promise<void> {
    return this.reporter.now({ ...this.observation('get'), ...extra });
  }

  /** The latest view, when the workflow does not have it yet. */
  result(): Observation | undefined {
    // A report still waiting out its coalesce time when the lease ends travels in the result instead.
    if (this.key() === this.sentKey) return undefined;
    return this.observation('get');
  }

  /** `park`: parks the round on the worker's shared watch (an approval round of an agent that streams). */
  async run(pushRegistered: boolean, park?: (known: RemoteTaskSnapshot) => Promise<Parking>): Promise<WatchResult['reason']> {
    const { policy } = this.input;
    const canStream = streams(policy, this.client);
    try {
      if (pushRegistered && this.input.parkOnPush) {
        // Registered first, looked second (the alert goes out after this look): every change from here is pushed.
        await this.getTask();
        return 'parked';
      }
      if (pushRegistered) {
        await this.poll(msToNumber(policy.pushBackstop), msToNumber(policy.pushBackstop));
      } else {
        if (canStream) {
          try {
            await this.stream(); // returns only when streams keep breaking
          } catch (err) {
            // An approval round outlasting its first lease moves to the worker's shared watch.
            if (park && err instanceof Done && err.reason === 'lease') return await this.park(park);
            throw err;
          }
        }
        await this.poll(msToNumber(policy.pollInitial), msToNumber(policy.pollMax));
      }
      return 'lease';
    } catch (err) {
      if (err instanceof Done) {
        await this.reporter.settle();
        return err.reason;
      }
      throw err;
    }
  }

  /** Hands the round to the shared watch, whose stream's first frame is one more look (it may act). */
  private async park(park: (known: RemoteTaskSnapshot) => Promise<Parking>): Promise<WatchResult['reason']> {
    await this.reporter.settle();
    const parking = await park(this.view.snapshot());
    if (parking.first) await this.see(parking.first);
    return parking.parked ? 'parked' : 'lease';
  }

  /** Holds SubscribeToTask; returns when streams keep breaking and polling should take over. */
  private async stream(): Promise<void> {
    const ctx = Context.current();
    const idleMs = msToNumber(this.input.policy.idleTimeout);
    let emptyCloses = 0;
    let backoffMs = 500;
    for (;;) {
      const before = this.key();
      let idle = false;
      try {
        const taken = await this.early?.take(this.client, this.input.taskId, ctx.cancellationSignal);
        if (taken?.told) this.heard(taken.told);
        if (taken && this.view.terminal) {
          taken.close();
          await this.awaitRunsEnd();
        }
        const stream =
          taken?.frames ??
          this.client.subscribeToTask({ id: this.input.taskId }, { signal: ctx.cancellationSignal, idleTimeoutMs: Math.max(1, Math.min(idleMs, this.remaining())) });
        for await (const frame of stream) {
          this.recovered();
          const o = observeFrame(frame, 'stream');
          if (o) await this.see(o);
        }
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw err;
        if (isTimeout(err, 'idle')) idle = true;
        else if (!(err instanceof A2AError)) throw err;
        // Refused or broken (a2a-go refuses a finished task with TASK_NOT_FOUND): GetTask decides below.
        else if (!err.retryable) log.info('subscription refused; asking GetTask', { taskId: this.input.taskId, error: err.message });
        else await this.failed(err);
      }
      // The stream closed, stalled or was refused: look, act, then subscribe again.
      await this.getTask();
      this.endIfLeaseOver();
      if (idle) {
        emptyCloses = 0;
        continue;
      }
      // A stream that closes bringing nothing new must not spin: back off, and poll after a bound.
      if (this.key() === before) emptyCloses++;
      else emptyCloses = 0;
      if (emptyCloses >= this.input.policy.maxEmptyCloses) {
        log.warn('streams keep closing without news; polling instead for this lease', { taskId: this.input.taskId, closes: emptyCloses });
        return;
      }
      await this.sleep(emptyCloses === 0 ? 0 : backoffMs);
      backoffMs = emptyCloses === 0 ? 500 : Math.min(backoffMs * 2, 30_000);
    }
  }

  private async poll(initialMs: number, maxMs: number): Promise<void> {
    let interval = initialMs;
    for (;;) {
      const before = this.key();
      await this.getTask();
      this.endIfLeaseOver();
      interval = this.key() === before ? Math.min(interval * 2, maxMs) : initialMs; // moving: look again soon
      await this.sleep(interval);
    }
  }

  /** GetTask, retried with a slow backoff while the agent is unreachable; only its verdict ends a task. */
  private async getTask(): Promise<void> {
    const ctx = Context.current();
    let backoffMs = 1000;
    for (;;) {
      try {
        const task = await this.client.getTask({ id: this.input.taskId, historyLength: 0 }, { signal: ctx.cancellationSignal });
        this.recovered();
        await this.see(observeTask(task, 'poll'));
        return;
      } catch (err) {
        if (ctx.cancellationSignal.aborted || err instanceof Done) throw err;
        if (err instanceof TaskNotFoundError) throw remoteTaskLost(this.input.agent.name, this.input.taskId, err);
        if (!(err instanceof A2AError) || !err.retryable) throw err;
        await this.failed(err);
        this.endIfLeaseOver();
        await this.sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 60_000);
      }
    }
  }

  /** Merges one observation; acts, reports later, or does nothing when nothing changed. */
  private async see(o: Observation): Promise<void> {
    const rounds = this.view.authEntries;
    const waited = this.view.state === 'TASK_STATE_AUTH_REQUIRED' || this.view.state === 'TASK_STATE_INPUT_REQUIRED';
    this.view.apply(o);
    if (this.mustAct(rounds)) {
      this.reporter.drop();
      throw new Done('act');
    }
    await this.alertOnce();
    const key = this.key();
    if (key === this.reportedKey) return;
    this.reportedKey = key;
    const resumed = waited && this.view.state !== 'TASK_STATE_AUTH_REQUIRED' && this.view.state !== 'TASK_STATE_INPUT_REQUIRED';
    this.reporter.later(this.observation('stream'), resumed ? RESUME_REPORT_MS : undefined);
  }

  /** What the workflow was told of the task before this watch took its subscription: known here, not reported again (its frames follow, and `see` acts on them). */
  private heard(o: Observation): void {
    this.view.apply(o);
    this.reportedKey = this.key();
    this.sentKey = this.reportedKey;
  }

  /**
   * The workflow was told the end before this watch took the subscription, and closes its run now:
   * a completion of this watch landing beside that close makes the server refuse it
   * (UnhandledCommand) and the run's last workflow task replay from the start. So the watch waits to
   * be cancelled (the run's end cancels it), bounded.
   */
  private async awaitRunsEnd(): Promise<void> {
    await Context.current().sleep(TOLD_END_WAIT_MS);
    throw new Done('act');
  }

  private mustAct(roundsBefore: number): boolean {
    const v = this.view;
    const k = this.input.known;
    if (v.terminal) return true;
    if (v.state === 'TASK_STATE_INPUT_REQUIRED') return k.state !== 'TASK_STATE_INPUT_REQUIRED' || v.timestamp !== k.timestamp;
    if (v.state === 'TASK_STATE_AUTH_REQUIRED') return k.state !== 'TASK_STATE_AUTH_REQUIRED' || v.authEntries > roundsBefore;
    return false;
  }

  /** Subscribe first, alert second: the first look at the task is the watch being established. */
  private async alertOnce(): Promise<void> {
    const a = this.input.alert;
    if (!a || this.alerted !== undefined || this.view.state !== 'TASK_STATE_AUTH_REQUIRED') return;
    await this.alertOperator(inTheAgentsWords(a, a.taskId, this.view.text));
    this.alerted = a.round;
  }

  /** A failed call: after `unreachableAfter` of failures, tell the operator and the workflow once. */
  private async failed(err: A2AError): Promise<void> {
    const now = Date.now();
    const error = `${err.name}: ${err.message}`;
    this.failing ??= { since: now, error, reported: false };
    this.failing.error = error;
    log.info('watching failed; will retry', { taskId: this.input.taskId, error });
    const p = this.input.policy;
    if (this.failing.reported || now - this.failing.since < msToNumber(p.unreachableAfter)) return;
    this.failing.reported = true;
    const problem: WatchProblem = { kind: 'unreachable', since: new Date(this.failing.since).toISOString(), error };
    const base = this.input.alert;
    await this.alertOperator({
      kind: 'unreachable',
      workflowId: Context.current().info.workflowExecution!.workflowId,
      planId: base?.planId,
      agent: this.input.agent.name,
      taskId: this.input.taskId,
      text: `The planner cannot watch task ${this.input.taskId} at ${this.input.agent.name} since ${problem.since}: ${error}`,
      idempotencyKey: `${this.input.watchId}:unreachable:${this.failing.since}`,
    });
    await this.tell({ problem });
    if (p.onUnreachable === 'fail') {
      throw ApplicationFailure.create({
        type: 'AgentUnreachable',
        nonRetryable: true,
        message: `agent ${this.input.agent.name} unreachable for longer than ${p.unreachableAfter} while watching task ${this.input.taskId}: ${error}`,
      });
    }
  }

  private recovered(): void {
    const f = this.failing;
    this.failing = undefined;
    if (f?.reported) void this.tell({ problem: null }).catch(() => undefined);
  }

  private observation(source: Observation['source']): Observation {
    return { ...this.view.observation(source), watchId: this.input.watchId, ...(this.alerted !== undefined ? { alerted: this.alerted } : {}) };
  }

  private keyOf(artifacts: string): string {
    const v = this.view;
    return statusKey(v.state, v.timestamp, v.text, artifacts);
  }

  private key(): string {
    return this.keyOf(artifactKey(this.view.artifactList));
  }

  private remaining(): number {
    return this.deadline - Date.now();
  }

  private endIfLeaseOver(): void {
    if (this.remaining() <= 0) throw new Done('lease');
  }

  private async sleep(ms: number): Promise<void> {
    const wait = Math.min(ms, this.remaining());
    if (wait > 0) await Context.current().sleep(wait);
    this.endIfLeaseOver();
  }
}

/** Whether a watch of this policy holds SubscribeToTask on this agent (the policy's mode, or the agent's card in `auto`; else it polls GetTask). */
export function streams(policy: Pick<WatchPolicy, 'mode'>, client: A2AClient): boolean {
  return policy.mode === 'stream' || (policy.mode === 'auto' && client.card.capabilities.streaming === true);
}

function statusKey(state: string | undefined, timestamp: string | undefined, text: string | undefined, artifacts: string): string {
  return `${state}|${timestamp}|${text}|${artifacts}`;
}

function keyOfObservation(o: Observation): string {
  return statusKey(o.status?.state, o.status?.timestamp, o.status?.text, artifactKey(o.artifacts ?? []));
}
