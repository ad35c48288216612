// The floor's workflow: one delegated task of the seed scenario in the least workflow code that
// keeps its shape (docs/benchmarks.md, "The floor"). The first message is a local activity in the
// first workflow task; a question is alerted in the same workflow task and answered through an
// update, whose answer goes out as a local activity; an approval is watched by an activity that
// subscribes before it alerts and returns the end. Nothing else: no search attributes or details,
// no patches, no deadlines, no look before the answer. FloorPlanWorkflow runs two of them as
// children, one after the other, as PlanWorkflow runs the seed plan's steps.
import { condition, defineUpdate, executeChild, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { FloorActivities, FloorTask } from './activities';

export const floorAnswerUpdate = defineUpdate<void, [string]>('answer');

const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 1 } });
const { watch } = proxyActivities<FloorActivities>({ startToCloseTimeout: '2m', retry: { maximumAttempts: 1 } });

export async function FloorTaskWorkflow(input: { agentUrl: string; text: string }): Promise<string> {
  let answer: string | undefined;
  setHandler(floorAnswerUpdate, (text) => void (answer = text));
  let task: FloorTask = await local.send({ agentUrl: input.agentUrl, text: input.text });
  if (task.state === 'TASK_STATE_INPUT_REQUIRED') {
    await local.alert({ kind: 'input', taskId: task.taskId });
    await condition(() => answer !== undefined);
    task = await local.send({ agentUrl: input.agentUrl, text: answer!, task });
  }
  if (task.state === 'TASK_STATE_AUTH_REQUIRED') task = await watch({ agentUrl: input.agentUrl, task });
  return task.state;
}

export async function FloorPlanWorkflow(input: { steps: { id: string; agentUrl: string; text: string }[] }): Promise<string> {
  let state = 'TASK_STATE_COMPLETED';
  for (const step of input.steps) {
    state = await executeChild(FloorTaskWorkflow, { workflowId: `${workflowInfo().workflowId}.${step.id}`, args: [{ agentUrl: step.agentUrl, text: step.text }] });
    if (state !== 'TASK_STATE_COMPLETED') break;
  }
  return state;
}
