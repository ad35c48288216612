// Reading the planner's A2A tasks from Temporal alone, so any replica serves any task: a task is
// a PlanWorkflow started over A2A, read by its a2aTask query. Following one long-polls the plan's
// history (client/follow-history.ts, as the CLI and the API do) and queries only when the history has moved: a
// follower adds no event to the plan's history.
import { createHash } from 'node:crypto';
import { isGrpcServiceError, ServiceError, type Client } from '@temporalio/client';
import { followHistory } from '../../client/follow-history';
import { PLAN_WORKFLOW_TYPE } from '../../client/plan';
import { describeWorkflowOfType, QUERY_TIMEOUT_MS } from '../../client/workflows';
import { TaskStateSchema, isTerminal, type Artifact, type Message, type Task, type TaskState } from '../../a2a/schema';
import { planTaskQuery, type PlanTask } from '../../workflows/plan/messages';

/** Kept for the face's other files: the one definition is client/plan.ts's. */

const shortDigest = (text: string, n = 16): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, n);

/** A contextId for a first message that brings none: derived from its messageId, so a retry gets the same one. */
export function contextIdFor(messageId: string): string {
  const x = shortDigest(`context\n${messageId}`, 32);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/**
 * The task id (= the plan's workflow id) of a first message: one per (caller, contextId,
 * messageId), so a retry finds the plan it started, and a caller's id never names another's task.
 */
export function taskIdFor(principal: string, contextId: string, messageId: string): string {
  return `${contextPrefix(principal, contextId)}${shortDigest(`message\n${messageId}`)}`;
}

/** Every task of a caller has this id prefix: it scopes lookups and ListTasks. */
export function principalPrefix(principal: string): string {
  return `a2a-${principal}-`;
}

/** Every task of a caller's context has this id prefix (ListTasks filters on it). */
export function contextPrefix(principal: string, contextId: string): string {
  return `${principalPrefix(principal)}${shortDigest(`ctx\n${contextId}`, 12)}-`;
}

/**
 * Reading an A2A task failed: there is no such task for this caller (not-found), or its state
 * cannot be read now (unavailable). The handler turns these into the SDK's typed errors.
 */
export class TaskLookupError extends Error {
  constructor(
    readonly kind: 'not-found' | 'unavailable',
    message: string,
  ) {
    super(message);
  }
}

export interface TaskRead {
  task: PlanTask;
  /** The workflow has closed. */
  closed: boolean;
  runId: string;
}

/** A closed workflow whose record is not terminal (terminated, timed out): the state it ended in. */
function closedState(status: string): TaskState | undefined {
  if (status === 'CANCELLED') return 'TASK_STATE_CANCELED';
  if (status === 'COMPLETED') return 'TASK_STATE_COMPLETED';
  if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') return undefined;
  return 'TASK_STATE_FAILED'; // FAILED, TERMINATED, TIMED_OUT
}

/** The caller's task: another caller's task is not found, exactly as an unknown one (spec §13.1). */
export async function readTask(client: Client, id: string, principal: string, queryTimeoutMs = QUERY_TIMEOUT_MS): Promise<TaskRead> {
  if (!id.startsWith(principalPrefix(principal))) throw new TaskLookupError('not-found', `Task not found: ${id}`);
  const desc = await describeWorkflowOfType(client, id, PLAN_WORKFLOW_TYPE, () => new TaskLookupError('not-found', `Task not found: ${id}`));
  let task: PlanTask | null;
  try {
    task = await client.withDeadline(Date.now() + queryTimeoutMs, () => client.workflow.getHandle(id, desc.runId).query(planTaskQuery));
  } catch (err) {
    // The SDK wraps a query that timed out or found no worker as ServiceError ("Failed to query Workflow").
    if (isGrpcServiceError(err) || err instanceof ServiceError || (err instanceof Error && /deadline|timed? ?out/i.test(err.message))) {
      throw new TaskLookupError('unavailable', `task ${id}: its state cannot be read now (is a planner worker running on task queue ${desc.taskQueue}?)`);
    }
    throw err;
  }
  if (!task) throw new TaskLookupError('not-found', `Task not found: ${id}`);
  const closed = desc.status.name !== 'RUNNING';
  const ended = closedState(desc.status.name);
  if (closed && ended && !isTerminal(task.status.state)) {
    const text = `The plan's workflow ended ${desc.status.name.toLowerCase()} without recording a final state`;
    task = { ...task, status: { state: ended, timestamp: (desc.closeTime ?? new Date()).toISOString(), message: { messageId: `${id}/status/closed`, taskId: id, contextId: task.contextId, role: 'ROLE_AGENT', parts: [{ text }] } } };
  }
  return { task, closed, runId: desc.runId };
}

/** historyLength (§3.2.4): unset keeps all, 0 drops the field, N keeps the last N. */
export function trimHistory<T extends Task>(task: T, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  const { history, ...rest } = task;
  return historyLength <= 0 ? rest : { ...rest, history: (history ?? []).slice(-historyLength) };
}

/** The state a status message of the plan's record carries (undefined: an upstream message). */
export function stateOfStatusMessage(m: Message): TaskState | undefined {
  if (m.role !== 'ROLE_AGENT') return undefined;
  const r = TaskStateSchema.safeParse(m.metadata?.state);
  return r.success ? r.data : undefined;
}

export type Frame =
  | { task: Task }
  | { statusUpdate: { taskId: string; contextId: string; status: Task['status']; metadata?: Record<string, unknown> } }
  | { artifactUpdate: { taskId: string; contextId: string; artifact: Artifact; append: boolean; lastChunk: boolean } };

export interface FollowOptions {
  /** The caller the task belongs to. */
  principal: string;
  signal?: AbortSignal;
  /** Yield the task as the first frame (SubscribeToTask, a follow-up SendStreamingMessage). */
  snapshot?: boolean;
  /** Frames start after this many history entries (default: the history as first read). */
  fromHistoryIndex?: number;
  /** Stop after a status in one of these states (the terminal ones always stop). */
  stopAt?: (state: TaskState) => boolean;
  /** Stop after the snapshot too when its state is one stopAt names (a retried first message). */
  stopAtSnapshot?: boolean;
  /** Called with each read (blocking SendMessage looks at these instead of frames). */
  onRead?: (read: TaskRead) => void;
}

/** readTask, waiting a little for a plan that was just started (its first workflow task answers queries). */
export async function readTaskSoon(client: Client, id: string, principal: string, withinMs = 15_000): Promise<TaskRead> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await readTask(client, id, principal);
    } catch (err) {
      if (!(err instanceof TaskLookupError && err.kind === 'unavailable') || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Frames for a task: the Task (when asked), then a statusUpdate for each status the plan records
 * and an artifactUpdate for each new artifact, read from the plan whenever its history moves.
 * Ends after a terminal status (or one `stopAt` names).
 */
export async function* followTask(client: Client, id: string, opts: FollowOptions): AsyncGenerator<Frame> {
  let read = await readTaskSoon(client, id, opts.principal);
  opts.onRead?.(read);
  if (opts.snapshot) yield { task: read.task };
  // Every status the plan recorded is in its history: each new one becomes a frame, in order,
  // even when several were recorded between two reads.
  let seenHistory = opts.fromHistoryIndex ?? read.task.history.length;
  // The artifacts the caller has: those in the snapshot, or all when frames start where the task stands now.
  const seenArtifacts = new Set(opts.snapshot || opts.fromHistoryIndex === undefined ? (read.task.artifacts ?? []).map((a) => a.artifactId) : []);
  const snapshotState = read.task.status.state;
  if (opts.snapshot && (isTerminal(snapshotState) || (opts.stopAtSnapshot && (opts.stopAt?.(snapshotState) ?? false)))) return;
  // The plan's history moving is the cue to read again (client/follow-history.ts: a long poll of
  // about 20 s at most, one abort signal per poll, Temporal's outages waited out).
  const moves = followHistory(client, id, { runId: read.runId, ...(opts.signal ? { signal: opts.signal } : {}) });
  try {
    for (;;) {
      const { task } = read;
      for (const artifact of task.artifacts ?? []) {
        if (seenArtifacts.has(artifact.artifactId)) continue;
        seenArtifacts.add(artifact.artifactId);
        yield { artifactUpdate: { taskId: id, contextId: task.contextId, artifact, append: false, lastChunk: true } };
      }
      const fresh = task.history.slice(seenHistory);
      seenHistory = Math.max(seenHistory, task.history.length);
      for (const m of fresh) {
        const state = stateOfStatusMessage(m);
        if (!state) continue; // the upstream's own message
        const status = { state, message: m, timestamp: String(m.metadata?.timestamp ?? task.status.timestamp) };
        yield { statusUpdate: { taskId: id, contextId: task.contextId, status } };
        if (isTerminal(state) || (opts.stopAt?.(state) ?? false)) return;
      }
      if (read.closed) {
        // Closed without a recorded final status (terminated, timed out): the state it ended in.
        if (isTerminal(task.status.state)) yield { statusUpdate: { taskId: id, contextId: task.contextId, status: task.status } };
        return;
      }
      let move;
      do move = await moves.next();
      while (!move.done && move.value.kind === 'unavailable');
      if (move.done) return; // the caller left
      read = await readTaskSoon(client, id, opts.principal);
      opts.onRead?.(read);
    }
  } finally {
    await moves.return(undefined);
  }
}
