// The inbox: what waits on whom (a human's answer, an operator's approval), across plans and single
// delegated tasks. It is one visibility query, refined by a hit's `status` query only when the hit
// lacks the search attributes that carry the inbox's fields.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { A2aAgent, A2aTaskId, A2aTaskState, PlanId, PlanStep, PlannerTurn, PlannerWaitText, PlannerWaitingOn, PlannerWaitingSince, fromTextAttribute } from '../workflows/search-attributes';
import { DELEGATED_TASK_WORKFLOW_TYPE, DelegatedTaskNotFoundError, InvalidInputError, queryStatus } from './delegated-task';
import { planIdProblem } from './plan';

/**
 * The visibility query behind the inbox: running delegated tasks waiting on a human, an operator or the agent;
 * `within`: a further visibility clause (the API's: only the caller's own workflows).
 */
export function inboxQuery(planId?: string, within?: string): string {
  // Plans carry PlannerWaitingOn too (their most urgent step); the inbox lists the steps' own tasks.
  const parts = [`WorkflowType = "${DELEGATED_TASK_WORKFLOW_TYPE}"`, `ExecutionStatus = "Running"`, `${PlannerWaitingOn.name} IN ("human","operator","agent")`];
  if (planId !== undefined) {
    const why = planIdProblem(planId);
    if (why) throw new InvalidInputError(why);
    parts.push(`${PlanId.name} = "${planId}"`);
  }
  if (within !== undefined) parts.push(within);
  return parts.join(' AND ');
}

export interface InboxEntry {
  workflowId: string;
  runId: string;
  agent: string;
  planId?: string;
  /** The plan step the task runs, for `planner answer PLAN STEP`. */
  stepId?: string;
  /** agent: the planner waits on the agent's reply or its work (stuck, slow or just busy: see the age). */
  waitingOn: 'human' | 'operator' | 'agent';
  /** The question turn (INPUT_REQUIRED); answers name it to avoid answering a stale question. */
  turn?: number;
  taskId?: string;
  state?: string;
  /** The question or the approval request, in the agent's words (clipped to 1,000 characters). */
  text?: string;
  /** When the agent's status last changed (its own timestamp), else when the workflow started. */
  waitingSince: Date;
  /** Set when the status query failed; the entry then comes from search attributes alone. */
  statusQueryError?: string;
}

/**
 * What waits on whom, from one visibility list: every delegated task publishes the inbox's fields
 * (question, turn, agent, plan step, waiting since) as search attributes whenever they change.
 * Only a hit without them (a run begun before they existed) is asked its status query. Oldest first.
 */
export async function listInbox(client: Client, opts: { planId?: string; within?: string } = {}): Promise<InboxEntry[]> {
  const hits: WorkflowExecutionInfo[] = [];
  for await (const wf of client.workflow.list({ query: inboxQuery(opts.planId, opts.within) })) hits.push(wf);
  const entries = await Promise.all(hits.map((wf) => entryFromAttributes(wf) ?? entryFromQuery(client, wf)));
  return entries.filter((e): e is InboxEntry => e !== undefined).sort((a, b) => a.waitingSince.getTime() - b.waitingSince.getTime());
}

function entryFromAttributes(wf: WorkflowExecutionInfo): InboxEntry | undefined {
  const attrs = wf.typedSearchAttributes;
  const since = attrs.get(PlannerWaitingSince);
  const waitingOn = attrs.get(PlannerWaitingOn);
  if (since === undefined || (waitingOn !== 'human' && waitingOn !== 'operator' && waitingOn !== 'agent')) return undefined;
  const planId = attrs.get(PlanId);
  const stepId = attrs.get(PlanStep);
  const turn = attrs.get(PlannerTurn);
  const taskId = attrs.get(A2aTaskId);
  const state = attrs.get(A2aTaskState);
  const raw = attrs.get(PlannerWaitText);
  const text = raw === undefined ? undefined : fromTextAttribute(raw);
  return {
    workflowId: wf.workflowId,
    runId: wf.runId,
    agent: attrs.get(A2aAgent) ?? '?',
    ...(planId !== undefined ? { planId } : {}),
    ...(stepId !== undefined ? { stepId } : {}),
    waitingOn,
    ...(turn !== undefined ? { turn } : {}),
    ...(taskId !== undefined ? { taskId } : {}),
    ...(state !== undefined ? { state } : {}),
    ...(text !== undefined ? { text } : {}),
    waitingSince: since,
  };
}

async function entryFromQuery(client: Client, wf: WorkflowExecutionInfo): Promise<InboxEntry | undefined> {
  const attrs = wf.typedSearchAttributes;
  const base = {
    workflowId: wf.workflowId,
    runId: wf.runId,
    agent: attrs.get(A2aAgent) ?? '?',
    planId: attrs.get(PlanId),
  };
  try {
    const s = await queryStatus(client, wf.workflowId, wf.runId, wf.taskQueue);
    if (s.waitingOn === 'none') return undefined;
    const since = s.lastUpdate ? new Date(s.lastUpdate) : undefined;
    return {
      ...base,
      agent: s.agent,
      planId: s.planId,
      ...(s.stepId ? { stepId: s.stepId } : {}),
      waitingOn: s.waitingOn,
      turn: s.turn,
      taskId: s.taskId,
      state: s.state,
      text: s.text,
      waitingSince: since && !Number.isNaN(since.getTime()) ? since : wf.startTime,
    };
  } catch (err) {
    if (err instanceof DelegatedTaskNotFoundError) return undefined;
    const waitingOn = attrs.get(PlannerWaitingOn);
    return {
      ...base,
      waitingOn: waitingOn === 'operator' || waitingOn === 'agent' ? waitingOn : 'human',
      waitingSince: wf.startTime,
      statusQueryError: err instanceof Error ? err.message : String(err),
    };
  }
}
