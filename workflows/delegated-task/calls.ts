// The activity proxies a delegation calls through, one per kind of call, each with the timeouts and
// retries that call needs (the watch has its own, per lease kind, in watch.ts). A proxy is no
// command: creating one records nothing, the call does.
import { CancellationScope, proxyActivities, type ActivityInterfaceFor, type RetryPolicy } from '@temporalio/workflow';
import { hasPatch } from '../versions';
import { msToNumber } from '@temporalio/common/lib/time';
import type { PlannerActivities } from '../../activities';
import type { AgentRef, Policies } from './input';
import { callTimeoutMs } from './call-timeout';

export type Calls = ActivityInterfaceFor<PlannerActivities>;

/** SendMessage: bounded by the send timeout, heartbeating while a blocking call waits. */
export function sendCalls(policies: Policies): Calls {
  return proxyActivities<PlannerActivities>({
    startToCloseTimeout: msToNumber(policies.sendTimeout) + 30_000,
    heartbeatTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
  });
}

const SHORT_RETRY: RetryPolicy = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 20, nonRetryableErrorTypes: ['RemoteTaskLost'] };
/** The short calls that wait on the agent: they get its call timeout (call-timeout.ts). */
const AGENT_CALLS: ReadonlySet<string> = new Set(['getRemoteTask', 'cancelRemoteTask', 'deletePush']);

/**
 * Short calls: alerts, GetTask, CancelTask, push configs, the run's own cancellation. Those that
 * wait on the agent have its call timeout and a margin for its card fetch, and heartbeat, so a
 * worker that dies in one is noticed in seconds; the others keep 30 s, the time after which a dead
 * worker's alert is sent again by another.
 */
export function shortCalls(agent: AgentRef): Calls {
  const quick = proxyActivities<PlannerActivities>({ startToCloseTimeout: '30s', retry: SHORT_RETRY });
  const onAgent = proxyActivities<PlannerActivities>({ startToCloseTimeout: callTimeoutMs(agent) + 30_000, heartbeatTimeout: '20s', retry: SHORT_RETRY });
  return new Proxy({} as Calls, { get: (_, name) => (typeof name === 'string' && AGENT_CALLS.has(name) ? onAgent : quick)[name as keyof Calls] });
}

/**
 * Since this patch a cancel that arrives while the first message is in flight waits for the send's
 * outcome, so that the task it created is known and cancelled too (else it ran on at the agent,
 * unseen), and the step's last report (the remote state after CancelTask) reaches its plan before
 * the step closes, so the plan can say which remote tasks were cancelled.
 */
export const CANCEL_FOLLOWS_SEND_PATCH = 'cancel-follows-first-send';

/**
 * The first send, followed to its outcome whatever cancels the run meanwhile. The send's commands
 * are the same either way; only a cancel during it differs, so the patch is asked then (a task
 * never cancelled mid-send records no marker), and a history from before it cancels the send.
 */
export async function followedSend(
  send: (input: Parameters<PlannerActivities['sendMessage']>[0]) => ReturnType<PlannerActivities['sendMessage']>,
  input: Parameters<PlannerActivities['sendMessage']>[0],
): ReturnType<PlannerActivities['sendMessage']> {
  const scope = new CancellationScope({ cancellable: false });
  let inFlight = true;
  CancellationScope.current().cancelRequested.catch(() => {
    if (inFlight && !hasPatch(CANCEL_FOLLOWS_SEND_PATCH)) scope.cancel();
  });
  try {
    return await scope.run(() => send(input));
  } finally {
    inFlight = false;
  }
}
