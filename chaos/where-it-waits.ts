// What a run that did not end in time was waiting on, for the fault's report: the plan's steps as
// the planner shows them, and each step's pending activities with their attempts and last failure.
// A hang in CI is then named by the log itself, without a rerun.
import type { Client } from '@temporalio/client';
import { describePlan } from '../client/plan';

/** Bounded: a report must not hang on the server it reports on. */
const SAY_WITHIN_MS = 15_000;

export async function whereItWaits(client: Client, planId: string): Promise<string> {
  // The deadline holds for every call the report makes (the client's own per-call deadline).
  return client.withDeadline(Date.now() + SAY_WITHIN_MS, () => describeWait(client, planId));
}

async function describeWait(client: Client, planId: string): Promise<string> {
  try {
    const plan = await describePlan(client, planId);
    if (plan.statusQueryError) return `plan ${plan.workflowStatus}, status query failed: ${plan.statusQueryError}`;
    const steps = await Promise.all(
      (plan.steps ?? []).map(async (s) => {
        const head = `${s.id} ${s.state} (remote ${s.remoteState ?? '-'}, waiting on ${s.waitingOn}${s.reason ? `, ${s.reason}` : ''})`;
        if (!s.workflowId || s.endedAt) return head;
        const d = await client.workflow.getHandle(s.workflowId).describe();
        const pending = (d.raw.pendingActivities ?? []).map(
          (a) => `${a.activityType?.name ?? '?'} attempt ${a.attempt ?? '?'}${a.lastFailure?.message ? ` (last failure: ${a.lastFailure.message.slice(0, 160)})` : ''}`,
        );
        return `${head}; ${d.historyLength} events; pending: ${pending.length ? pending.join(', ') : 'none'}`;
      }),
    );
    return `plan ${plan.workflowStatus}; ${steps.join('; ') || 'no step started'}`;
  } catch (err) {
    return `cannot say: ${String(err).slice(0, 200)}`;
  }
}

/** The same for several plans, one line: for a wait on pages that timed out. */
export async function whereTheyWait(client: Client, planIds: string[]): Promise<string> {
  const each = await Promise.all(planIds.map(async (p) => `${p}: ${await whereItWaits(client, p)}`));
  return each.join(' | ');
}
