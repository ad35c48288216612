// What every reader of the planner's workflows does the same way: find a workflow by id and check
// it is of the kind asked for (a plan id must not name a delegated task, nor the reverse), and
// bound a query so that a missing worker gives an answer instead of a hang, said in one sentence.
// Used by client/plan.ts, client/delegated-task.ts and the A2A face (server/face/tasks.ts).
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';

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
