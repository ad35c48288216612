// Plans from outside the worker (CLI, API, the A2A face): start one from a file or a document,
// read its state, answer the step that asks, cancel it, list plans. Input is checked here, at
// the edge, so nothing starts when a plan cannot run.
import { randomUUID } from 'node:crypto';
import {
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  isGrpcDeadlineError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { loadPlanFile, planFromValue, PlanError, type LoadOptions } from '../plans/load';
import type { PlanRunInput } from '../workflows/plan/input';
import type { Answer, AnswerResult } from '../workflows/delegated-task/messages';
import { describeFailure } from '../workflows/failure-cause';
import { PlanWorkflow } from '../workflows/plan/workflow';
import { planAnswerSignal, planStatusQuery, type PlanResult, type PlanStatus, type StepStatus } from '../workflows/plan/messages';
import { PlanId, PlannerOwner, PlannerWaitingOn } from '../workflows/search-attributes';
import { answerTask, answerTaskWithin, type AnswerOutcome } from './delegated-task';
import { describeWorkflowOfType, QUERY_TIMEOUT_MS, statusQueryTimeoutMessage } from './workflows';

export { PlanError };
export const PLAN_WORKFLOW_TYPE = PlanWorkflow.name;

/** Why a plan id cannot be searched for (it goes into a visibility query string), if it cannot. */
export function planIdProblem(planId: string): string | undefined {
  if (planId === '') return 'a plan id cannot be empty';
  if (/["'\\\r\n]/.test(planId)) return 'quotes, backslashes and line breaks are not allowed in a plan id';
  return undefined;
}

/** The plan cannot run (bad file, bad document, bad inputs): nothing was started. */
export class InvalidPlanError extends Error {
  override readonly name = 'InvalidPlanError';
}

export class PlanNotFoundError extends Error {
  override readonly name = 'PlanNotFoundError';
  constructor(readonly planId: string, detail?: string) {
    super(`no plan with id ${planId}${detail ? ` (${detail})` : ''}`);
  }
}

/** The step is not waiting on a question (or the turn named is not the current one): a conflict, not bad input. */
export class StepNotWaitingError extends Error {
  override readonly name = 'StepNotWaitingError';
}

export type PlanSource = { planFile: string } | { plan: unknown };

export interface StartPlanRequest extends Omit<LoadOptions, 'baseDir'> {
  /** The plan id (= its workflow id); default `plan-<name>-<8 hex>`. */
  planId?: string;
  /** The principal of the API caller starting it (PlannerOwner, carried to its steps); none from the CLI. */
  owner?: string;
  /** Kept with the plan, readable by every replica (the API keeps an Idempotency-Key's body hash here). */
  memo?: Record<string, string>;
}

/** Checks a plan (file or document) without starting it; throws InvalidPlanError naming every problem. */
export function checkPlanSource(source: PlanSource, opts: Omit<LoadOptions, 'baseDir'> = {}): PlanRunInput {
  try {
    return 'planFile' in source ? loadPlanFile(source.planFile, opts) : planFromValue(source.plan, 'plan', opts);
  } catch (e) {
    if (e instanceof PlanError) throw new InvalidPlanError(e.message);
    throw e;
  }
}

export interface StartedPlan {
  planId: string;
  workflowId: string;
  handle: WorkflowHandle<typeof PlanWorkflow>;
}

export async function startPlan(client: Client, source: PlanSource | PlanRunInput, req: StartPlanRequest, opts: { taskQueue: string }): Promise<StartedPlan> {
  const run = 'inputs' in source && 'plan' in source && !('planFile' in source) && isRunInput(source) ? source : checkPlanSource(source as PlanSource, req);
  const planId = req.planId ?? `plan-${run.plan.name}-${randomUUID().slice(0, 8)}`;
  const why = planIdProblem(planId) ?? (/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(planId) ? undefined : 'letters, digits, ".", "_", ":" or "-"');
  if (why) throw new InvalidPlanError(`bad plan id ${JSON.stringify(planId)}: ${why}`);
  const handle = await client.workflow.start(PlanWorkflow, {
    taskQueue: opts.taskQueue,
    workflowId: planId,
    args: [run],
    staticSummary: `plan ${run.plan.name}${run.plan.description ? `: ${run.plan.description.split('\n')[0]}` : ''} (${run.plan.steps.map((s) => s.id).join(' → ')})`,
    typedSearchAttributes: [
      { key: PlanId, value: planId },
      { key: PlannerWaitingOn, value: 'none' },
      ...(req.owner !== undefined ? [{ key: PlannerOwner, value: req.owner }] : []),
    ],
    ...(req.memo ? { memo: req.memo } : {}),
  });
  return { planId, workflowId: planId, handle };
}

function isRunInput(v: object): v is PlanRunInput {
  const r = v as { inputs?: unknown; plan?: { steps?: unknown } };
  return typeof r.inputs === 'object' && r.inputs !== null && Array.isArray(r.plan?.steps);
}

/** The plan's workflow; PlanNotFoundError when there is none (or it is another kind of workflow). */
export function requirePlan(client: Client, planId: string): Promise<WorkflowExecutionDescription> {
  return describeWorkflowOfType(client, planId, PLAN_WORKFLOW_TYPE, (detail) => new PlanNotFoundError(planId, detail));
}

/** A plan as callers see it: its Temporal status, its status query, and how it ended. */
export interface PlanSnapshot extends Partial<PlanStatus> {
  planId: string;
  workflowId: string;
  runId: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, ... */
  workflowStatus: string;
  startTime: string;
  closeTime?: string;
  /** A closed plan that did not complete: its innermost typed cause. */
  failure?: string;
  /** A closed plan's result (also carried by a failed plan's failure). */
  result?: PlanResult;
  /** Why the status query could not be answered. */
  statusQueryError?: string;
}

export async function describePlan(client: Client, planId: string): Promise<PlanSnapshot> {
  const desc = await requirePlan(client, planId);
  const base: PlanSnapshot = {
    planId,
    workflowId: planId,
    runId: desc.runId,
    workflowStatus: desc.status.name,
    startTime: desc.startTime.toISOString(),
    ...(desc.closeTime ? { closeTime: desc.closeTime.toISOString() } : {}),
  };
  const ended = desc.status.name === 'RUNNING' ? {} : await outcomeOf(client, planId);
  try {
    const status = await client.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => client.workflow.getHandle(planId, desc.runId).query(planStatusQuery));
    return { ...base, ...status, ...ended };
  } catch (err) {
    const why = isGrpcDeadlineError(err) ? statusQueryTimeoutMessage(desc.taskQueue) : err instanceof Error ? err.message : String(err);
    return { ...base, statusQueryError: why, ...ended };
  }
}

async function outcomeOf(client: Client, planId: string): Promise<Pick<PlanSnapshot, 'failure' | 'result'>> {
  try {
    const result = await client.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => client.workflow.getHandle<typeof PlanWorkflow>(planId).result());
    return { result };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) return {};
    const details = (err.cause as { details?: unknown[] } | undefined)?.details;
    const result = details?.[0] as PlanResult | undefined;
    return { failure: describeFailure(err), ...(result && Array.isArray(result.steps) ? { result } : {}) };
  }
}

/** The step called stepId, from the plan's status; StepNotWaitingError-free lookup for routing. */
export async function stepOf(client: Client, planId: string, stepId: string): Promise<StepStatus> {
  const snapshot = await describePlan(client, planId);
  if (snapshot.statusQueryError) throw new Error(`cannot read plan ${planId}: ${snapshot.statusQueryError}`);
  const step = snapshot.steps?.find((s) => s.id === stepId);
  if (!step) throw new PlanNotFoundError(planId, `it has no step ${JSON.stringify(stepId)}; steps: ${(snapshot.steps ?? []).map((s) => s.id).join(', ')}`);
  return step;
}

/**
 * Answers the question a step waits on: the answer goes, as an update, to the step's own task
 * workflow, whose validator decides if it still fits the question; returns the agent's next state.
 */
export async function answerStep(client: Client, planId: string, stepId: string, answer: Answer): Promise<AnswerResult> {
  const workflowId = await askingStepTask(client, planId, stepId);
  try {
    return await answerTask(client, workflowId, answer);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw new StepNotWaitingError(`step ${stepId} of plan ${planId}: ${err.cause?.message ?? err.message}`);
    throw err;
  }
}

/** answerStep, waiting at most `waitMs` for the agent's reply (answerTaskWithin: else the answer is pending). */
export async function answerStepWithin(client: Client, planId: string, stepId: string, answer: Answer, waitMs: number): Promise<AnswerOutcome> {
  const workflowId = await askingStepTask(client, planId, stepId);
  try {
    return await answerTaskWithin(client, workflowId, answer, waitMs);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw new StepNotWaitingError(`step ${stepId} of plan ${planId}: ${err.cause?.message ?? err.message}`);
    throw err;
  }
}

/**
 * The answer as the plan's `answer` signal, for when no worker polls the plan's queue (its status
 * query and the step's update both need one): it is in the plan's history at once, and the plan
 * checks it against the step's last report, binds it to that turn unless it names one, and passes
 * it on when a worker starts; a refusal shows on the step (`planner status`).
 */
export async function recordStepAnswer(client: Client, desc: WorkflowExecutionDescription, stepId: string, answer: Answer): Promise<void> {
  await client.workflow.getHandle(desc.workflowId, desc.runId).signal(planAnswerSignal, { ...answer, stepId });
}

/** The workflow of the step's task, when it waits on a question; StepNotWaitingError saying what it does instead. */
async function askingStepTask(client: Client, planId: string, stepId: string): Promise<string> {
  const step = await stepOf(client, planId, stepId);
  if (step.state !== 'running' || step.waitingOn !== 'human' || !step.workflowId) {
    const now = step.state === 'running' ? (step.waitingOn === 'operator' ? 'waiting for an approval, which travels outside A2A' : `${step.remoteState ?? 'starting'}, not asking anything`) : step.state;
    throw new StepNotWaitingError(`step ${stepId} of plan ${planId} is not waiting on a question (it is ${now})`);
  }
  return step.workflowId;
}

/** Requests cancellation; the plan cancels its steps, which cancel the agents' tasks. */
export async function cancelPlan(client: Client, planId: string): Promise<void> {
  await requirePlan(client, planId);
  await client.workflow.getHandle(planId).cancel();
}
