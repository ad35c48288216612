// The floor's workflow: one delegated task of the seed scenario in the least workflow code that
// keeps its shape (docs/benchmarks.md, "The floor"). The first message is a local activity in the
// first workflow task; a question is alerted in the same workflow task and answered through an
// update, whose answer goes out as a local activity; an approval is watched by an activity that
// subscribes before it alerts and returns the end. Nothing else: no search attributes or details,
// no patches, no deadlines, no look before the answer. FloorPlanWorkflow runs two of them as
// children, one after the other, as PlanWorkflow runs the seed plan's steps; with `showWaits`, in the
// least code that shows what waits on whom as the planner's plan must (its status, its UI details,
// the plans' list by wait, the A2A face's escalation): each step's wait in its own search attribute
// and reported to the plan, which keeps it in its own.
import { condition, executeChild, getExternalWorkflowHandle, proxyActivities, proxyLocalActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { PlannerWaitingOn } from '../../workflows/search-attributes';
import type { FloorActivities, FloorTask } from './activities';
import { floorAnswerUpdate, floorStepWaitingSignal } from './messages';

const showWait = (on: string): void => upsertSearchAttributes([{ key: PlannerWaitingOn, value: on }]);

const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 1 } });
const { watch } = proxyActivities<FloorActivities>({ startToCloseTimeout: '2m', retry: { maximumAttempts: 1 } });

export async function FloorTaskWorkflow(input: { agentUrl: string; text: string; showWaits?: boolean }): Promise<string> {
  let answer: string | undefined;
  setHandler(floorAnswerUpdate, (text) => void (answer = text));
  const plan = input.showWaits ? workflowInfo().parent?.workflowId : undefined;
  let task: FloorTask = await local.send({ agentUrl: input.agentUrl, text: input.text });
  if (task.state === 'TASK_STATE_INPUT_REQUIRED') {
    // The question's report goes out with its alert, as the planner's first send posts it: signalled
    // from here, its acknowledgement would land while the answer's update is taken, and the server
    // would fail that workflow task (UnhandledCommand) and the update with it.
    if (input.showWaits) showWait('human');
    await local.alert({ kind: 'input', taskId: task.taskId, ...(plan ? { reportTo: plan } : {}) });
    await condition(() => answer !== undefined);
    task = await local.send({ agentUrl: input.agentUrl, text: answer!, task });
  }
  if (task.state === 'TASK_STATE_AUTH_REQUIRED') {
    // The approval's is a signal, as the planner's: its acknowledgement lands while the watch waits.
    if (input.showWaits) showWait('operator');
    if (plan) void getExternalWorkflowHandle(plan).signal(floorStepWaitingSignal, 'operator');
    task = await watch({ agentUrl: input.agentUrl, task });
  }
  return task.state;
}

export async function FloorPlanWorkflow(input: { steps: { id: string; agentUrl: string; text: string }[]; showWaits?: boolean }): Promise<string> {
  const { showWaits } = input;
  if (showWaits) setHandler(floorStepWaitingSignal, showWait);
  let state = 'TASK_STATE_COMPLETED';
  for (const step of input.steps) {
    state = await executeChild(FloorTaskWorkflow, { workflowId: `${workflowInfo().workflowId}.${step.id}`, args: [{ agentUrl: step.agentUrl, text: step.text, showWaits }] });
    if (showWaits) showWait('none'); // the step's end is its result: no report
    if (state !== 'TASK_STATE_COMPLETED') break;
  }
  return state;
}
