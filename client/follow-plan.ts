// Following a plan as it moves, from Temporal alone: long-poll the plan's history (as
// `temporal workflow show --follow` does) and read its status query whenever the history grows.
// Any process can follow any plan, and a follower adds nothing to the plan's history.
import type { Client } from '@temporalio/client';
import { describePlan, type PlanSnapshot } from './plan';

export interface FollowOptions {
  /** Stops following (the generator returns). */
  signal?: AbortSignal;
}

/** Yields the plan's snapshot now and after every change, the last one once the plan has closed. */
export async function* followPlan(client: Client, planId: string, opts: FollowOptions = {}): AsyncGenerator<PlanSnapshot> {
  let last = '';
  let token: Uint8Array | undefined;
  let first = true;
  const changed = (s: PlanSnapshot): boolean => {
    const key = JSON.stringify({ ...s, statusQueryError: undefined });
    if (key === last) return false;
    last = key;
    return true;
  };
  while (!opts.signal?.aborted) {
    // The first call returns the history so far; later ones wait (about 20 s at most) for new events.
    const request = { namespace: client.options.namespace, execution: { workflowId: planId }, nextPageToken: token, waitNewEvent: !first, maximumPageSize: 1000 };
    const call = () => client.workflowService.getWorkflowExecutionHistory(request);
    const res = opts.signal ? await client.withAbortSignal(opts.signal, call) : await call();
    first = false;
    token = res.nextPageToken && res.nextPageToken.length > 0 ? res.nextPageToken : undefined;
    const closed = token === undefined; // the whole history has been read: the run has ended
    if ((res.history?.events?.length ?? 0) > 0 || closed) {
      const snapshot = await describePlan(client, planId);
      if (changed(snapshot) || closed) yield snapshot;
    }
    if (closed) return;
  }
}
