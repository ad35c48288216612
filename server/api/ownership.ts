// Who may see what on /v1: a caller sees only what it started (its plans, their steps' tasks, its
// schedules and the plans they start), an operator sees everything. The owner is read from Temporal
// (the PlannerOwner search attribute set when a plan or schedule starts, carried by a plan to its
// steps), so every replica decides the same; an A2A task's id says its caller too (server/face/
// tasks.ts), which covers A2A plans started before the attribute existed. What is not the caller's
// gets exactly the answer an unknown id gets, so nothing tells a caller that another's id exists.
import type { Client, ScheduleDescription, WorkflowExecutionDescription } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { WorkflowNotFoundError } from '@temporalio/client';
import { DelegatedTaskNotFoundError, requireTask } from '../../client/delegated-task';
import { PlanNotFoundError, requirePlan } from '../../client/plan';
import { PlanId, PlannerOwner } from '../../workflows/search-attributes';
import type { Caller } from '../auth';
import { principalPrefix } from '../face/tasks';

/** The principal that started a workflow: its PlannerOwner, else the caller its A2A task id names; undefined when nobody's (the CLI's). */
export function ownerOfWorkflow(workflowId: string, attributes: TypedSearchAttributes, principalOfId: (id: string) => string | undefined = facePrincipalOf): string | undefined {
  return attributes.get(PlannerOwner) ?? principalOfId(workflowId);
}

/** The caller an A2A task id (or a step of one: `<task id>.<step>`) carries: `a2a-<principal>-...`. */
export function facePrincipalOf(workflowId: string): string | undefined {
  const m = /^a2a-([0-9a-f]{12}|anonymous)-/.exec(workflowId);
  return m && workflowId.startsWith(principalPrefix(m[1]!)) ? m[1] : undefined;
}

export function mayAccess(caller: Caller, owner: string | undefined): boolean {
  return caller.operator || (owner !== undefined && owner === caller.principal);
}

/**
 * The visibility clause that keeps a listing to the caller's own workflows (none for an operator).
 * A principal is 12 hex digits or "anonymous" (server/auth.ts): nothing in it needs quoting.
 */
export function ownedClause(caller: Caller): string | undefined {
  if (caller.operator) return undefined;
  if (!/^[0-9a-f]{12}$|^anonymous$/.test(caller.principal)) throw new Error(`not a principal: ${JSON.stringify(caller.principal)}`);
  return `(${PlannerOwner.name} = "${caller.principal}" OR WorkflowId STARTS_WITH "${principalPrefix(caller.principal)}")`;
}

/** The caller's plan: PlanNotFoundError, as for an unknown id, when it is another's. */
export async function requireOwnedPlan(client: Client, caller: Caller, planId: string): Promise<WorkflowExecutionDescription> {
  const desc = await requirePlan(client, planId);
  if (!mayAccess(caller, ownerOfWorkflow(planId, desc.typedSearchAttributes))) throw new PlanNotFoundError(planId);
  return desc;
}

/**
 * The caller's delegated task: DelegatedTaskNotFoundError, as for an unknown id, when it is
 * another's. A step's task without an owner of its own (its plan began under a worker that did not
 * carry the owner yet) belongs to its plan's owner.
 */
export async function requireOwnedTask(client: Client, caller: Caller, workflowId: string): Promise<WorkflowExecutionDescription> {
  const desc = await requireTask(client, workflowId);
  if (caller.operator) return desc;
  let owner = ownerOfWorkflow(workflowId, desc.typedSearchAttributes);
  const planId = desc.typedSearchAttributes.get(PlanId);
  if (owner === undefined && planId !== undefined && workflowId.startsWith(`${planId}.`)) {
    owner = await requirePlan(client, planId).then(
      (plan) => ownerOfWorkflow(planId, plan.typedSearchAttributes),
      (err: unknown) => {
        if (err instanceof PlanNotFoundError || err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      },
    );
  }
  if (!mayAccess(caller, owner)) throw new DelegatedTaskNotFoundError(workflowId);
  return desc;
}

/** A schedule's owner: its own PlannerOwner (set when the API created it); undefined for the CLI's. */
export function ownerOfSchedule(desc: Pick<ScheduleDescription, 'typedSearchAttributes'>): string | undefined {
  return desc.typedSearchAttributes?.get(PlannerOwner);
}
