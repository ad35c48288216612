// What every reader of the planner's workflows does the same way: find a workflow by id and check
// it is of the kind asked for (a plan id must not name a delegated task, nor the reverse), and
// bound a query so that a missing worker gives an answer instead of a hang, said in one sentence.
// Used by client/plan.ts, client/delegated-task.ts and the A2A face (server/face/tasks.ts). Also:
// whether any worker polls a workflow's task queue, so that a caller can say so instead of hanging.
import { isGrpcDeadlineError, QueryNotRegisteredError, QueryRejectedError, WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';

/** How long a query (or reading a closed run's result) may take before the worker is presumed absent. */
export const QUERY_TIMEOUT_MS = 10_000;

/**
 * The workflow `workflowId` when it is a `type` workflow. When there is none, throws
 * `notFound()`; when it is another kind, throws `notFound('it is a <kind> workflow')`.
 */
export async function describeWorkflowOfType(
  client: Client,
  workflowId: string,
  type: string,
  notFound: (detail?: string) => Error,
): Promise<WorkflowExecutionDescription> {
  let desc: WorkflowExecutionDescription;
  try {
    desc = await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw notFound();
    throw err;
  }
  if (desc.type !== type) throw notFound(`it is a ${desc.type} workflow`);
  return desc;
}

/** What to say when a `status` query got no answer within QUERY_TIMEOUT_MS: the task queue a worker should poll. */
export function statusQueryTimeoutMessage(taskQueue?: string): string {
  const queue = taskQueue ? ` on task queue ${taskQueue}` : '';
  return `the status query got no answer within ${QUERY_TIMEOUT_MS / 1000} s: is a planner worker running${queue}?`;
}

/**
 * A live worker polls again within about 70 s (one long poll); the server keeps listing a poller
 * for 5 minutes after its last poll, so one not seen for longer than this is taken as gone.
 */
export const POLLER_GONE_AFTER_MS = 2 * 60_000;

/** The identities of the workers that poll `taskQueue` for workflow tasks; empty when none runs. */
export async function workflowPollers(client: Client, taskQueue: string): Promise<string[]> {
  const res = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: 1 /* TASK_QUEUE_KIND_NORMAL */ },
    taskQueueType: 1 /* TASK_QUEUE_TYPE_WORKFLOW: the one an update or a signal needs */,
  });
  const seen = (p: { lastAccessTime?: Parameters<typeof tsToMs>[0] | null }): boolean => !p.lastAccessTime || Date.now() - tsToMs(p.lastAccessTime) < POLLER_GONE_AFTER_MS;
  return (res.pollers ?? []).filter(seen).map((p) => p.identity || '(unnamed worker)');
}

/** How long a probe query may take before the workers listed on a queue are taken as gone. */
export const WORKER_PROBE_MS = 5_000;

/**
 * Whether a worker runs the workflow now. None polls its queue: no (one call). Some are listed: the
 * server lists a stopped worker for minutes, so a built-in query, bounded, asks if one still answers.
 */
export async function workerRuns(client: Client, desc: WorkflowExecutionDescription): Promise<boolean> {
  if ((await workflowPollers(client, desc.taskQueue)).length === 0) return false;
  const deadline = Date.now() + WORKER_PROBE_MS;
  try {
    await client.withDeadline(deadline, () => client.workflow.getHandle(desc.workflowId, desc.runId).query('__temporal_workflow_metadata'));
    return true;
  } catch (err) {
    if (err instanceof QueryNotRegisteredError || err instanceof QueryRejectedError) return true; // a worker answered (a failed query too)
    // Past the deadline the call ends DEADLINE_EXCEEDED, or CANCELLED through the CLI's connection.
    if (isGrpcDeadlineError(err) || Date.now() >= deadline) return false;
    throw err;
  }
}
