// ListTasks (§3.1.4) from Temporal visibility: the caller's plans started over A2A, filtered by
// search attributes, newest status first, in pages whose token is the last (time, id) given. Each
// listed task is then read from its plan like GetTask, so a page shows what GetTask would. Kept
// apart from the handler because the ordering and paging are the only logic it has of its own.
import type { Client } from '@temporalio/client';
import { ListTasksRequest as SdkListTasksRequest, Task as SdkTask, type ListTasksResponse as SdkListTasksResponse } from '@a2a-js/sdk';
import { z } from 'zod';
import { TaskStateSchema, type Task } from '../../a2a/schema';
import { PlanWorkflow } from '../../workflows/plan/workflow';
import { A2aTaskState, PlannerWaitingSince } from '../../workflows/search-attributes';
import { HistoryLengthSchema, invalidParams, parseParams } from './params';
import { TaskLookupError, contextPrefix, principalPrefix, readTask, trimHistory } from './tasks';

const ListTasksParams = z.object({
  contextId: z.string().optional(),
  status: TaskStateSchema.optional(),
  pageSize: z.number().int().min(1, 'pageSize must be between 1 and 100').max(100, 'pageSize must be between 1 and 100').optional(),
  pageToken: z.string().optional(),
  historyLength: HistoryLengthSchema,
  statusTimestampAfter: z.iso.datetime({ offset: true }).optional(),
  includeArtifacts: z.boolean().optional(),
});

const DEFAULT_PAGE_SIZE = 50;
/** ListTasks reads at most this many matching tasks to sort them (a caller with more sees the newest of these). */
const LIST_SCAN_LIMIT = 10_000;
/** How long a listed task's query may take before it is listed from visibility (a worker answers in ms). */
const LISTED_QUERY_MS = 2_000;

/** A task as ListTasks found it in visibility: the key it is ordered and paged by, and what the record says. */
interface Listed {
  id: string;
  /** Its status time (PlannerWaitingSince), in ms. */
  at: number;
  state?: string;
  contextId?: unknown;
}

/** Where a page starts: after the task of this (time, id), the last one the previous page gave. */
type PageKey = Pick<Listed, 'at' | 'id'>;

function pageTokenOf(last: PageKey): string {
  return Buffer.from(JSON.stringify([last.at, last.id])).toString('base64url');
}

function readPageToken(token: string): PageKey {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'string') return { at: v[0], id: v[1] };
  } catch {
    // falls through to the error below
  }
  throw invalidParams('pageToken: not a token this server gave');
}

/** ListTasks' order: the newest time first, ties by id. */
const newestFirst =
  <T extends { id: string }>(at: (x: T) => number) =>
  (a: T, b: T): number =>
    at(b) - at(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The task from visibility alone (its query went unanswered): id, context, state and time; the reason in its metadata. */
function listedOnly(e: Listed, err: unknown): Task {
  const state = TaskStateSchema.safeParse(e.state);
  return {
    id: e.id,
    contextId: typeof e.contextId === 'string' ? e.contextId : '',
    status: { state: state.success ? state.data : 'TASK_STATE_UNSPECIFIED', timestamp: new Date(e.at).toISOString() },
    metadata: { planner: { stateUnreadable: `only the listing's record: the plan's state could not be read (${err instanceof Error ? err.message : String(err)})` } },
  };
}

/** One page of the caller's tasks (ListTasks). */
export async function listCallerTasks(client: Client, principal: string, params: SdkListTasksRequest): Promise<SdkListTasksResponse> {
  const wire = SdkListTasksRequest.toJSON(params) as Record<string, unknown>;
  // The codec writes unset fields as their zero values: those are "no filter".
  const p = parseParams(ListTasksParams, {
    ...wire,
    status: wire.status === 'TASK_STATE_UNSPECIFIED' ? undefined : wire.status,
    contextId: wire.contextId || undefined,
    pageToken: wire.pageToken || undefined,
  });
  // Only the caller's tasks (their ids carry its principal), filtered by visibility.
  const clauses = [`WorkflowType = '${PlanWorkflow.name}'`, `${A2aTaskState.name} IS NOT NULL`, `WorkflowId STARTS_WITH '${principalPrefix(principal)}'`];
  if (p.contextId) clauses.push(`WorkflowId STARTS_WITH '${contextPrefix(principal, p.contextId)}'`);
  if (p.status) clauses.push(`${A2aTaskState.name} = '${p.status}'`);
  if (p.statusTimestampAfter) clauses.push(`${PlannerWaitingSince.name} > '${new Date(p.statusTimestampAfter).toISOString()}'`);
  const pageSize = p.pageSize ?? DEFAULT_PAGE_SIZE;
  const after = p.pageToken ? readPageToken(p.pageToken) : undefined;
  // Newest status first (§3.1.4). SQL visibility cannot ORDER BY a search attribute, so the
  // matching tasks' (status time, id) pairs are read and sorted here; the page token is the last
  // pair given, so pages neither repeat nor skip a task that keeps its place.
  const entries: Listed[] = [];
  for await (const info of client.workflow.list({ query: clauses.join(' AND '), pageSize: 1000 })) {
    const at = info.typedSearchAttributes.get(PlannerWaitingSince);
    entries.push({ id: info.workflowId, at: at ? at.getTime() : 0, state: info.typedSearchAttributes.get(A2aTaskState), contextId: info.memo?.a2aContextId });
    if (entries.length >= LIST_SCAN_LIMIT) break;
  }
  entries.sort(newestFirst((e) => e.at));
  const from = after ? entries.findIndex((e) => e.at < after.at || (e.at === after.at && e.id > after.id)) : 0;
  const page = from < 0 ? [] : entries.slice(from, from + pageSize);
  // A task gone since the listing (retention) is left out. One whose state cannot be read now (no
  // worker answers its query within LISTED_QUERY_MS) is listed as visibility knows it, saying so:
  // one stuck plan must neither fail the caller's list, nor vanish from it, nor hold it up long.
  const tasks = await Promise.all(
    page.map(async (e) => {
      try {
        const { artifacts, ...rest } = trimHistory((await readTask(client, e.id, principal, LISTED_QUERY_MS)).task, p.historyLength);
        return SdkTask.fromJSON(p.includeArtifacts ? { ...rest, artifacts: artifacts ?? [] } : rest);
      } catch (err) {
        if (err instanceof TaskLookupError && err.kind === 'not-found') return undefined;
        return SdkTask.fromJSON(listedOnly(e, err));
      }
    }),
  ).then((all) => all.filter((t) => t !== undefined));
  // Visibility lags the plans a little: a task that moved since its record was written shows a
  // newer time than the record it was placed by. The page is ordered by the times it shows, so a
  // response never contradicts itself; the token stays on the records' keys.
  tasks.sort(newestFirst((t) => Date.parse(t.status?.timestamp ?? '') || 0));
  const last = page.at(-1);
  const more = from >= 0 && from + pageSize < entries.length;
  return { tasks, nextPageToken: more && last ? pageTokenOf(last) : '', pageSize, totalSize: entries.length };
}
