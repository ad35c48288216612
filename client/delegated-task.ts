// Delegated tasks from outside the worker (API, CLI, tests): start one, answer it, resolve a lost
// first message, and read one (its Temporal execution, its status query, how it ended, what it
// produced). Input is parsed here, at the edge, so a caller learns which field is wrong before
// anything starts.
import { randomUUID } from 'node:crypto';
import {
  isGrpcDeadlineError,
  ServiceError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { displayUrl } from '../a2a';
import type { Artifact, Part } from '../a2a/schema';
import { DelegatedTaskWorkflow } from '../workflows/delegated-task/workflow';
import { refusedAgentUrls } from '../a2a/outbound-policy';
import { describeIssues, formatPath } from '../a2a/validate';
import { DelegatedTaskInputSchema, type DelegatedTaskInput, type DelegatedTaskResult } from '../workflows/delegated-task/input';
import {
  answerSignal,
  answerUpdate,
  resolveSendUpdate,
  statusQuery,
  type Answer,
  type AnswerResult,
  type DelegatedTaskStatus,
  type SendResolution,
} from '../workflows/delegated-task/messages';
import { describeFailure } from '../workflows/failure-cause';
import { A2aAgent, PlanId, PlannerTurn, PlannerWaitingOn, firstReplyWait } from '../workflows/search-attributes';
import { describeWorkflowOfType, QUERY_TIMEOUT_MS, statusQueryTimeoutMessage } from './workflows';
import { DelegatedTaskNotFoundError, InvalidInputError } from './errors';

export const DELEGATED_TASK_WORKFLOW_TYPE = DelegatedTaskWorkflow.name;

export { DelegatedTaskNotFoundError, InvalidInputError };

export interface StartOptions {
  taskQueue: string;
  workflowId?: string;
}

/** The one-line summary the Temporal UI shows: the agent and the message's first line. */
export function summaryOf(input: DelegatedTaskInput): string {
  const firstLine = (input.message.text ?? JSON.stringify(input.message.data) ?? '').split('\n')[0]!.trim();
  const clipped = firstLine.length > 120 ? `${firstLine.slice(0, 117)}...` : firstLine;
  return `${input.agent.name}: ${clipped}`;
}

export async function startDelegatedTask(
  client: Client,
  raw: unknown,
  opts: StartOptions,
): Promise<WorkflowHandle<typeof DelegatedTaskWorkflow>> {
  const parsed = DelegatedTaskInputSchema.safeParse(raw);
  if (!parsed.success) throw new InvalidInputError(`invalid delegated task: ${describeIssues(parsed.error, raw)}`);
  // The parsed input, defaults filled in, is what the history records: the workflow never
  // re-applies a default on replay, so changing a default cannot break a running workflow.
  const input: DelegatedTaskInput = parsed.data;
  const refused = refusedAgentUrls(input.agent);
  if (refused.length > 0) throw new InvalidInputError(`invalid delegated task: ${refused.map((p) => `agent.${formatPath(p.path)}: ${p.message}`).join('; ')}`);
  return client.workflow.start(DelegatedTaskWorkflow, {
    taskQueue: opts.taskQueue,
    workflowId: opts.workflowId ?? `task-${parsed.data.agent.name}-${randomUUID()}`,
    args: [input],
    staticSummary: summaryOf(input),
    typedSearchAttributes: [
      { key: A2aAgent, value: parsed.data.agent.name },
      ...firstReplyWait(new Date()),
      ...(parsed.data.planId ? [{ key: PlanId, value: parsed.data.planId }] : []),
    ],
  });
}

export async function answerTask(client: Client, workflowId: string, answer: Answer): Promise<AnswerResult> {
  return (await startAnswer(client, workflowId, answer)).result();
}

/** How often an answer is offered again after the workflow task that took it failed. */
const ANSWER_OFFERS = 3;

/**
 * Starts the `answer` update, and starts it again (same update id) when the server reports that
 * the workflow task that took it failed: that task's acceptance was never recorded, so the answer
 * is not lost with it. It happens when an event lands while that task closes the run (the server
 * refuses the close: UnhandledCommand), more often since an answer is sent by a local attempt
 * inside that task (workflows/delegated-task/local-first.ts); a local answer looks before it
 * sends, so the next offer finds it delivered instead of sending it twice.
 */
export async function startAnswer(client: Client, workflowId: string, answer: Answer) {
  const updateId = randomUUID();
  for (let offer = 1; ; offer++) {
    try {
      return await client.workflow.getHandle(workflowId).startUpdate(answerUpdate, { args: [answer], updateId, waitForStage: WorkflowUpdateStage.ACCEPTED });
    } catch (err) {
      if (offer >= ANSWER_OFFERS || !takenByAFailedTask(err)) throw err;
    }
  }
}

/** The server's word for an update whose workflow task failed before it recorded the acceptance. */
function takenByAFailedTask(err: unknown): boolean {
  const cause = err instanceof ServiceError ? (err.cause as { code?: number; message?: string } | undefined) : undefined;
  return cause?.code === 9 && /unexpected workflow task failure/.test(cause.message ?? '');
}

/** What recordAnswer did: the answer is in the task's history, bound to `turn`; or why it was not sent. */
export type Recorded = { recorded: true; turn: number } | { recorded: false; reason: string };

/**
 * The answer as the `answer` signal, for when no worker polls the task's queue: an update needs a
 * worker to be admitted, while a signal is in the history at once and the task applies it by the
 * same rules (answer-rules.ts) when a worker starts. It is bound to the turn the task last published
 * (what `planner inbox` shows), and refused here when that is no question or another turn.
 */
export async function recordAnswer(client: Client, desc: WorkflowExecutionDescription, answer: Answer): Promise<Recorded> {
  const waitingOn = desc.typedSearchAttributes.get(PlannerWaitingOn);
  const turn = desc.typedSearchAttributes.get(PlannerTurn);
  if (waitingOn !== 'human' || turn === undefined) return { recorded: false, reason: `${desc.workflowId} is not waiting on a question (waiting on ${waitingOn ?? 'none'})` };
  if (answer.turn !== undefined && answer.turn !== turn) return { recorded: false, reason: `the answer names turn ${answer.turn}, but the current question is turn ${turn}` };
  await client.workflow.getHandle(desc.workflowId, desc.runId).signal(answerSignal, { ...answer, turn });
  return { recorded: true, turn };
}

/**
 * What an answer came to within a wait: the agent replied (its next state), or the task took the
 * answer (its validator passed, the answer is durable and on its way) but the agent's reply had
 * not come back yet.
 */
export type AnswerOutcome = { kind: 'replied'; result: AnswerResult } | { kind: 'pending' };

/** The task's workflow did not even take the answer within the wait (no worker, or a backlog): it may still do so. */
export class AnswerNotTakenError extends Error {
  override readonly name = 'AnswerNotTakenError';
}

/**
 * answerTask, waiting at most `waitMs` in all: for the workflow to accept the answer, then for the
 * agent's reply. A refusal (not waiting, a stale turn) still throws WorkflowUpdateFailedError.
 */
export async function answerTaskWithin(client: Client, workflowId: string, answer: Answer, waitMs: number): Promise<AnswerOutcome> {
  const deadline = AbortSignal.timeout(waitMs);
  let update;
  try {
    update = await client.withAbortSignal(deadline, () => startAnswer(client, workflowId, answer));
  } catch (err) {
    if (deadline.aborted && !(err instanceof WorkflowUpdateFailedError) && !(err instanceof WorkflowNotFoundError)) {
      throw new AnswerNotTakenError(`${workflowId} did not take the answer within ${waitMs} ms (is a planner worker running?); it may still take it`);
    }
    throw err;
  }
  try {
    return { kind: 'replied', result: await client.withAbortSignal(deadline, () => update.result()) };
  } catch (err) {
    if (deadline.aborted && !(err instanceof WorkflowUpdateFailedError) && !(err instanceof WorkflowNotFoundError)) return { kind: 'pending' };
    throw err;
  }
}

/** The operator's decision on a first message whose reply was lost (`status.unresolvedSend`). */
export function resolveSend(client: Client, workflowId: string, resolution: SendResolution): Promise<DelegatedTaskStatus> {
  return client.workflow.getHandle(workflowId).executeUpdate(resolveSendUpdate, { args: [resolution] });
}

/** The `status` query, bounded so that a missing worker gives an answer instead of a hang. */
export async function queryStatus(client: Client, workflowId: string, runId?: string, taskQueue?: string): Promise<DelegatedTaskStatus> {
  try {
    return await client.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => client.workflow.getHandle(workflowId, runId).query(statusQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new DelegatedTaskNotFoundError(workflowId);
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

/** The workflow behind a delegated task id; DelegatedTaskNotFoundError when there is none (or it is another kind). */
export function requireTask(client: Client, workflowId: string): Promise<WorkflowExecutionDescription> {
  return describeWorkflowOfType(client, workflowId, DELEGATED_TASK_WORKFLOW_TYPE, (detail) => new DelegatedTaskNotFoundError(workflowId, detail));
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
