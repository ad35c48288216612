// How long one short call to an agent may take (GetTask, CancelTask, push configs, the lookups that
// reconcile a retried send), per agent (`callTimeout` in a plan's agents). The default lets a slow but
// live agent, one that answers within a minute or so, keep its task: the first send's reconcile after
// a 503 used to give up at 30 s per call and fail the step after ten such attempts.
import { msToNumber } from '@temporalio/common/lib/time';
import type { AgentRef } from './input';

export const DEFAULT_CALL_TIMEOUT = '2m';
/** A caller's plan may not hold a worker's call (and its slot) for longer than this. */
export const MAX_CALL_TIMEOUT_MS = 10 * 60_000;

export function callTimeoutMs(agent: Pick<AgentRef, 'callTimeout'>): number {
  return Math.min(msToNumber(agent.callTimeout ?? DEFAULT_CALL_TIMEOUT), MAX_CALL_TIMEOUT_MS);
}
