// The watch lease: one watchRemoteTask activity on the `<queue>-watch` task queue follows the remote
// task for a bounded time and returns when the workflow must act, or when its lease runs out and the
// workflow renews it (so new activity code and rebalancing take effect). Each lease runs in a
// cancellation scope of its own, so the workflow can stop it without cancelling anything else.
import { CancellationScope, condition, isCancellation, proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import type { PlannerActivities, WatchInput, WatchResult } from '../../activities';
import type { WatchPolicy } from './input';

/** What a lease's watch is told; the lease itself adds its id, the policy and its length (ended by `endByMs` from now, if given). */
export type LeaseRequest = Pick<WatchInput, 'agent' | 'taskId' | 'known' | 'alert' | 'pushConfigId' | 'parkOnPush'> & { endByMs?: number };

/** One lease in flight. Its id names its signals, so the workflow ignores those of any other (a zombie's). */
export class WatchLease {
  done = false;
  /** Why the watch failed, when it failed of itself (a crash or a bug, not a cancellation). */
  error?: unknown;
  private readonly scope = new CancellationScope();

  private constructor(
    readonly id: string,
    /** The approval round this lease watches, if it watches one. */
    readonly round: number | undefined,
  ) {}

  /** Runs `watch` in the lease's own scope; `onResult` takes what the watch learned when it returns. */
  static start(id: string, round: number | undefined, watch: () => Promise<WatchResult>, onResult: (result: WatchResult) => void): WatchLease {
    const lease = new WatchLease(id, round);
    void lease.scope.run(watch).then(
      (result) => {
        lease.done = true;
        onResult(result);
      },
      (err: unknown) => {
        lease.done = true;
        if (!isCancellation(err)) lease.error = err;
      },
    );
    return lease;
  }

  /** Cancels the watch without waiting for it (the run is ending anyway). */
  cancel(): void {
    if (!this.done) this.scope.cancel();
  }

  /** Cancels the watch and waits until its activity has let go. */
  async stop(): Promise<void> {
    if (this.done) return;
    this.scope.cancel();
    await condition(() => this.done);
  }
}

/** Starts leases of the two kinds, each on its own activity options. */
export class WatchLeases {
  /** The first lease of every wait heartbeats fast: a worker lost right after the alert hands the watch over in seconds. */
  private readonly fast: ActivityInterfaceFor<PlannerActivities>;
  private readonly slow: ActivityInterfaceFor<PlannerActivities>;
  private readonly firstLeaseMs: number;
  private readonly leaseMs: number;

  constructor(
    taskQueue: string,
    private readonly policy: WatchPolicy,
  ) {
    this.firstLeaseMs = msToNumber(policy.firstLease);
    this.leaseMs = msToNumber(policy.lease);
    this.fast = watchActivities(`${taskQueue}-watch`, policy.firstHeartbeatTimeout, this.firstLeaseMs);
    this.slow = watchActivities(`${taskQueue}-watch`, policy.heartbeatTimeout, this.leaseMs);
  }

  start(id: string, round: number | undefined, fast: boolean, request: LeaseRequest, onResult: (result: WatchResult) => void): WatchLease {
    const activities = fast ? this.fast : this.slow;
    // Fields in the order the activity's input has always had (the payload recorded in history).
    const watch = (): Promise<WatchResult> =>
      activities.watchRemoteTask({
        agent: request.agent,
        taskId: request.taskId,
        watchId: id,
        known: request.known,
        policy: this.policy,
        // A lease ends by the wait's deadline too (request.endByMs): the deadline costs no timer.
        leaseMs: Math.min(fast ? this.firstLeaseMs : this.leaseMs, request.endByMs ?? Infinity),
        alert: request.alert,
        push: this.policy.push,
        pushConfigId: request.pushConfigId,
        ...(request.parkOnPush ? { parkOnPush: true } : {}),
      });
    return WatchLease.start(id, round, watch, onResult);
  }
}

function watchActivities(taskQueue: string, heartbeatTimeout: Duration, leaseMs: number): ActivityInterfaceFor<PlannerActivities> {
  return proxyActivities<PlannerActivities>({
    taskQueue,
    startToCloseTimeout: leaseMs + 10 * 60_000, // a lease ends by itself; this only bounds a stuck attempt
    heartbeatTimeout,
    // The watch absorbs the agent's own failures (unreachable alerts); what is left is a crash or a bug.
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: ['RemoteTaskLost', 'AgentUnreachable'] },
  });
}
