// The activity proxies a delegation calls through, one per kind of call, each with the timeouts and
// retries that call needs (the watch has its own, per lease kind, in watch.ts). A proxy is no
// command: creating one records nothing, the call does.
import { proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import type { PlannerActivities } from '../../activities';
import type { Policies } from './input';

export type Calls = ActivityInterfaceFor<PlannerActivities>;

/** SendMessage: bounded by the send timeout, heartbeating while a blocking call waits. */
export function sendCalls(policies: Policies): Calls {
  return proxyActivities<PlannerActivities>({
    startToCloseTimeout: msToNumber(policies.sendTimeout) + 30_000,
    heartbeatTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
  });
}

/** Short calls: alerts, GetTask, CancelTask, push configs, the run's own cancellation. */
export function shortCalls(): Calls {
  return proxyActivities<PlannerActivities>({
    startToCloseTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 20, nonRetryableErrorTypes: ['RemoteTaskLost'] },
  });
}
