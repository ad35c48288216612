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
  const changed = (s: PlanSnapshot): boolean => {
    const key = JSON.stringify({ ...s, statusQueryError: undefined });
    if (key === last) return false;
    last = key;
    return true;
  };
  while (!opts.signal?.aborted) {
    // The first call returns the history so far; later ones wait (about 20 s at most) for new events.
    // While the run is open the server always hands back a token to wait with; none means it closed.
    const request = { namespace: client.options.namespace, execution: { workflowId: planId }, nextPageToken: token, waitNewEvent: true, maximumPageSize: 1000 };
    const call = () => client.workflowService.getWorkflowExecutionHistory(request);
    const res = opts.signal ? await abortable(client, opts.signal, call) : await call();
    token = res.nextPageToken && res.nextPageToken.length > 0 ? res.nextPageToken : undefined;
    const closed = token === undefined; // the whole history has been read: the run has ended
    if ((res.history?.events?.length ?? 0) > 0 || closed) {
      const snapshot = await describePlan(client, planId);
      if (changed(snapshot) || closed) yield snapshot;
    }
    if (closed) return;
  }
}

/** One signal per call: the SDK leaves a listener on the signal it is given, so a long follow would pile them up on the caller's. */
async function abortable<T>(client: Client, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  const per = new AbortController();
  const abort = (): void => per.abort();
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await client.withAbortSignal(per.signal, call);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}
