// Shared steps of the plan suites: plan documents over the suite's agents, and waiting on a plan's status.
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { PlanDocument } from '../../workflows/plan/input';
import type { PlanWorkflow } from '../../workflows/plan/workflow';
import { planStatusQuery, type PlanStatus, type StepStatus } from '../../workflows/plan/messages';
import { eventually } from './wait';

export const RELEASE_PLAN = join(__dirname, '..', '..', 'demo', 'plans', 'release.yaml');

export type PlanHandle = WorkflowHandle<typeof PlanWorkflow>;

export const DIFF_TEXT = 'Please review this diff:\n+const refund = amount > 0;';

/** A plan document with the given agents (name → base URL) and steps. */
export function planDoc(name: string, agents: Record<string, string>, steps: PlanDocument['steps']): PlanDocument {
  return { name, agents: Object.fromEntries(Object.entries(agents).map(([n, url]) => [n, { url }])), steps };
}

export function waitForPlan(handle: PlanHandle, pred: (s: PlanStatus) => boolean, what: string, timeoutMs = 20_000): Promise<PlanStatus> {
  return eventually(async () => {
    const s = await handle.query(planStatusQuery);
    return pred(s) ? s : undefined;
  }, what, timeoutMs);
}

export function step(s: PlanStatus, id: string): StepStatus {
  const found = s.steps.find((x) => x.id === id);
  if (!found) throw new Error(`no step ${id} in ${JSON.stringify(s.steps.map((x) => x.id))}`);
  return found;
}

/** Both the plan and the workflows of its started steps, for the replay check. */
export async function planWorkflowIds(client: Client, planId: string): Promise<string[]> {
  const s = await client.workflow.getHandle(planId).query(planStatusQuery);
  return [planId, ...s.steps.flatMap((x) => (x.workflowId ? [x.workflowId] : []))];
}
