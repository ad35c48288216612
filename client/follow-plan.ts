// Following a plan as it moves, from Temporal alone: each time its history moves
// (client/follow-history.ts) read its status query, and yield when what it says changed.
// Any process can follow any plan, and a follower adds nothing to the plan's history.
import type { Client } from '@temporalio/client';
import { followHistory } from './follow-history';
import { describePlan, type PlanSnapshot } from './plan';

export interface FollowOptions {
  /** Stops following (the generator returns). */
  signal?: AbortSignal;
}

/** Yields the plan's snapshot now and after every change, the last one once the plan has closed. */
export async function* followPlan(client: Client, planId: string, opts: FollowOptions = {}): AsyncGenerator<PlanSnapshot> {
  let last = '';
  for await (const move of followHistory(client, planId, opts)) {
    if (move.kind === 'unavailable') continue; // the follow goes on; the next poll tells
    const snapshot = await describePlan(client, planId);
    const key = JSON.stringify({ ...snapshot, statusQueryError: undefined });
    if (key !== last || move.kind === 'closed') yield snapshot;
    last = key;
  }
}
