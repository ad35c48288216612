// Reading delegated tasks from outside the worker (CLI, API): one task's status, and the inbox of
// what waits on whom, which is a visibility query refined by each hit's `status` query.
import {
  isGrpcDeadlineError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { displayUrl } from '../a2a';
import type { Artifact, Part } from '../a2a/schema';
import { DelegatedTaskWorkflow } from '../workflows/delegated-task/workflow';
import type { DelegatedTaskResult } from '../workflows/delegated-task/input';
import { describeFailure } from '../workflows/failure-cause';
import { statusQuery, type DelegatedTaskStatus } from '../workflows/delegated-task/messages';
import { A2aAgent, A2aTaskId, A2aTaskState, PlanId, PlanStep, PlannerTurn, PlannerWaitText, PlannerWaitingOn, PlannerWaitingSince, fromTextAttribute } from '../workflows/search-attributes';
import { InvalidInputError } from './delegated-task';
import { describeWorkflowOfType, QUERY_TIMEOUT_MS, statusQueryTimeoutMessage } from './workflows';

const WORKFLOW_TYPE = DelegatedTaskWorkflow.name;

export class TaskNotFoundError extends Error {
  override readonly name = 'TaskNotFoundError';
  constructor(
    readonly workflowId: string,
    detail?: string,
  ) {
    super(`no delegated task with id ${workflowId}${detail ? ` (${detail})` : ''}`);
  }
}

/** The visibility query behind the inbox: running delegated tasks waiting on a human or an operator. */
export function inboxQuery(planId?: string): string {
  // Plans carry PlannerWaitingOn too (their most urgent step); the inbox lists the steps' own tasks.
  const parts = [`WorkflowType = "${WORKFLOW_TYPE}"`, `ExecutionStatus = "Running"`, `${PlannerWaitingOn.name} IN ("human","operator")`];
  if (planId !== undefined) {
    const why = planIdProblem(planId);
    if (why) throw new InvalidInputError(why);
    parts.push(`${PlanId.name} = "${planId}"`);
  }
  return parts.join(' AND ');
}

/** Why a plan id cannot be searched for (it goes into a visibility query string), if it cannot. */
export function planIdProblem(planId: string): string | undefined {
  if (planId === '') return 'a plan id cannot be empty';
  if (/["'\\\r\n]/.test(planId)) return 'quotes, backslashes and line breaks are not allowed in a plan id';
  return undefined;
}

/** The `status` query, bounded so that a missing worker gives an answer instead of a hang. */
export async function queryStatus(client: Client, workflowId: string, runId?: string, taskQueue?: string): Promise<DelegatedTaskStatus> {
  try {
    return await client.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => client.workflow.getHandle(workflowId, runId).query(statusQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new TaskNotFoundError(workflowId);
    if (isGrpcDeadlineError(err)) throw new Error(statusQueryTimeoutMessage(taskQueue));
    throw err;
  }
}

/** A delegated task as the CLI shows it: its Temporal execution and, when a worker answers, its status query. */
export interface TaskSnapshot extends Partial<DelegatedTaskStatus> {
  workflowId: string;
  runId: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, ... */
  workflowStatus: string;
  taskQueue: string;
  startTime: string;
  closeTime?: string;
  /** Why the status query could not be answered (the rest of the snapshot is still valid). */
  statusQueryError?: string;
  /** A run that closed other than COMPLETED: its innermost typed cause (see workflows/failure-cause.ts). */
  failure?: string;
  /** A COMPLETED run: what it produced, each artifact with its size and a short preview. */
  artifacts?: ArtifactSummary[];
  /** Why the closed run's result or failure could not be read. */
  resultError?: string;
}

export interface ArtifactSummary {
  artifactId: string;
  name?: string;
  description?: string;
  parts: number;
  /** Inline content in bytes (text as UTF-8, data as JSON, raw decoded); parts given by URL count nothing. */
  bytes: number;
  /** The first part, on one line and clipped: text or JSON, else what kind of file it is. */
  preview: string;
}

/** The workflow behind a delegated task id; TaskNotFoundError when there is none (or it is another kind). */
export function requireTask(client: Client, workflowId: string): Promise<WorkflowExecutionDescription> {
  return describeWorkflowOfType(client, workflowId, WORKFLOW_TYPE, (detail) => new TaskNotFoundError(workflowId, detail));
}

export async function describeTask(client: Client, workflowId: string): Promise<TaskSnapshot> {
  const desc = await requireTask(client, workflowId);
  const base: TaskSnapshot = {
    workflowId,
    runId: desc.runId,
    workflowStatus: desc.status.name,
    taskQueue: desc.taskQueue,
    startTime: desc.startTime.toISOString(),
    ...(desc.closeTime ? { closeTime: desc.closeTime.toISOString() } : {}),
  };
  const ended = desc.status.name === 'RUNNING' ? {} : await outcomeOf(client, workflowId, desc.runId, desc.status.name);
  try {
    return { ...base, ...(await queryStatus(client, workflowId, desc.runId, desc.taskQueue)), ...ended };
  } catch (err) {
    return { ...base, statusQueryError: err instanceof Error ? err.message : String(err), ...ended };
  }
}

/** How a closed run ended: its failure, described once, or the artifacts of its result. */
async function outcomeOf(client: Client, workflowId: string, runId: string, status: string): Promise<Pick<TaskSnapshot, 'failure' | 'artifacts' | 'resultError'>> {
  if (status === 'CONTINUED_AS_NEW') return {};
  try {
    const handle = client.workflow.getHandle<typeof DelegatedTaskWorkflow>(workflowId, runId, { followRuns: false });
    const result: DelegatedTaskResult = await client.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => handle.result());
    return { artifacts: (result.artifacts ?? []).map(summarizeArtifact) };
  } catch (err) {
    if (err instanceof WorkflowFailedError) return { failure: describeFailure(err) };
    return { resultError: `cannot read how the run ended: ${err instanceof Error ? err.message : String(err)}` };
  }
}

const PREVIEW_CHARS = 80;

export function summarizeArtifact(a: Artifact): ArtifactSummary {
  const name = a.name ?? a.parts.find((p) => p.filename)?.filename;
  return {
    artifactId: a.artifactId,
    ...(name !== undefined ? { name } : {}),
    ...(a.description !== undefined ? { description: a.description } : {}),
    parts: a.parts.length,
    bytes: a.parts.reduce((n, p) => n + partBytes(p), 0),
    preview: a.parts[0] ? previewOf(a.parts[0]) : '',
  };
}

function partBytes(p: Part): number {
  if ('text' in p && typeof p.text === 'string') return Buffer.byteLength(p.text);
  if ('raw' in p && typeof p.raw === 'string') return base64Bytes(p.raw);
  if ('data' in p) return Buffer.byteLength(JSON.stringify(p.data) ?? '');
  return 0;
}

function previewOf(p: Part): string {
  if ('text' in p && typeof p.text === 'string') return clip(p.text);
  if ('data' in p) return clip(JSON.stringify(p.data) ?? 'null');
  const kind = p.mediaType ?? 'application/octet-stream';
  if ('raw' in p && typeof p.raw === 'string') return `(${kind}, ${base64Bytes(p.raw)} bytes)`;
  if ('url' in p && typeof p.url === 'string') return `(${kind} at ${displayUrl(p.url)})`  /* a presigned URL: where it points, not its query */;
  return '';
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

function base64Bytes(b64: string): number {
  const s = b64.replace(/[^A-Za-z0-9+/_-]/g, '');
  return Math.floor((s.length * 3) / 4);
}


export interface InboxEntry {
  workflowId: string;
  runId: string;
  agent: string;
  planId?: string;
  /** The plan step the task runs, for `planner answer PLAN STEP`. */
  stepId?: string;
  waitingOn: 'human' | 'operator';
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
export async function listInbox(client: Client, opts: { planId?: string } = {}): Promise<InboxEntry[]> {
  const hits: WorkflowExecutionInfo[] = [];
  for await (const wf of client.workflow.list({ query: inboxQuery(opts.planId) })) hits.push(wf);
  const entries = await Promise.all(hits.map((wf) => entryFromAttributes(wf) ?? entryFromQuery(client, wf)));
  return entries.filter((e): e is InboxEntry => e !== undefined).sort((a, b) => a.waitingSince.getTime() - b.waitingSince.getTime());
}

function entryFromAttributes(wf: WorkflowExecutionInfo): InboxEntry | undefined {
  const attrs = wf.typedSearchAttributes;
  const since = attrs.get(PlannerWaitingSince);
  const waitingOn = attrs.get(PlannerWaitingOn);
  if (since === undefined || (waitingOn !== 'human' && waitingOn !== 'operator')) return undefined;
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
    if (err instanceof TaskNotFoundError) return undefined;
    const waitingOn = attrs.get(PlannerWaitingOn);
    return {
      ...base,
      waitingOn: waitingOn === 'operator' ? 'operator' : 'human',
      waitingSince: wf.startTime,
      statusQueryError: err instanceof Error ? err.message : String(err),
    };
  }
}
