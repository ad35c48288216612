// Commands that take "an id" (status, answer, cancel, artifacts) accept a plan's id or a delegated
// task's workflow id; the workflow's type says which.
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { DELEGATED_TASK_WORKFLOW_TYPE } from '../client/delegated-task';
import { PLAN_WORKFLOW_TYPE } from '../client/plan';
import { CliFailure } from './errors';

export type WorkflowKind = { kind: 'plan' | 'task'; desc: WorkflowExecutionDescription };

export async function workflowKind(client: Client, id: string): Promise<WorkflowKind> {
  let desc: WorkflowExecutionDescription;
  try {
    desc = await client.workflow.getHandle(id).describe();
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) throw new CliFailure(`no plan or delegated task with id ${id}`);
    throw e;
  }
  if (desc.type === PLAN_WORKFLOW_TYPE) return { kind: 'plan', desc };
  if (desc.type === DELEGATED_TASK_WORKFLOW_TYPE) return { kind: 'task', desc };
  throw new CliFailure(`${id} is a ${desc.type} workflow, neither a plan nor a delegated task`);
}

/** The Temporal UI's page of a workflow. */
export function uiLink(uiUrl: string, namespace: string, workflowId: string): string {
  return `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
