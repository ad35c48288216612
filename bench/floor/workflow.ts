// The floor's workflow: one delegated task of the seed scenario in the least workflow code that
// keeps its shape (docs/benchmarks.md, "The floor"). The first message is a local activity in the
// first workflow task; a question is alerted in the same workflow task and answered through an
// update, whose answer goes out as a local activity; an approval is watched by an activity that
// subscribes before it alerts and returns the end. Nothing else: no search attributes or details,
// no patches, no deadlines, no look before the answer. FloorPlanWorkflow runs two of them as
// children, one after the other, as PlanWorkflow runs the seed plan's steps; with `showWaits`, in the
// least code that shows what waits on whom as the planner's plan must (its status, its UI details,
// the plans' list by wait, the A2A face's escalation): each step's wait in its own search attribute
// and reported to the plan, which keeps it in its own. With `promises` as well, the events the
// planner's other promises add to a step's history (test/histories/plan-steps), in the least code
// that makes them: a patch asked in each step's first workflow task (a versioned workflow's replay
// of its older runs: workflows/versions.ts), a timer on each wait the planner times, cancelled when
// it ends (a question's backstop poll or deadline; an approval's deadline where its step has one,
// as the seed plan's deploy does: a wait does not go silent), and the step's end recorded in its
// search attributes (what the Temporal UI's list shows of it). Its tasks' histories then hold the
// planner's tasks' events one for one, but for the review's alert, a local activity of its own
// (docs/benchmarks.md).
import { CancellationScope, condition, executeChild, getExternalWorkflowHandle, isCancellation, patched, proxyActivities, proxyLocalActivities, setHandler, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { A2aTaskState, PlannerWaitingOn } from '../../workflows/search-attributes';
import type { FloorActivities, FloorTask } from './activities';
import { floorAnswerUpdate, floorStepWaitingSignal } from './messages';

const showWait = (on: string): void => upsertSearchAttributes([{ key: PlannerWaitingOn, value: on }]);

const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 1 } });
const { watch } = proxyActivities<FloorActivities>({ startToCloseTimeout: '2m', retry: { maximumAttempts: 1 } });

/** What the floor adds to its least code: the steps' waits shown, and with them the planner's other promises' events. */
export interface FloorShape {
  showWaits?: boolean;
  promises?: boolean;
  /** With `promises`: a deadline timer on the approval too, as the seed plan's deploy has (release.yaml; FloorPlanWorkflow sets it); a task started alone has none. */
  approvalDeadline?: boolean;
}

/** The patch a versioned step asks in its first workflow task (the planner's steps ask CURRENT_PATCH there). */
const FLOOR_PATCH = 'floor-promises';
/** A wait's timer: long enough never to fire in the bench. */
const DEADLINE = '1d';

/** Runs `wait`, when `timed` under a deadline timer cancelled once the wait is over, as the planner's deadlines are. */
async function waitTimed<T>(timed: boolean | undefined, wait: () => Promise<T>): Promise<T> {
  if (!timed) return wait();
  const deadline = new CancellationScope();
  const timer = deadline.run(() => sleep(DEADLINE)).catch((err: unknown) => {
    if (!isCancellation(err)) throw err;
  });
  try {
    return await wait();
  } finally {
    deadline.cancel();
    await timer;
  }
}

export async function FloorTaskWorkflow(input: { agentUrl: string; text: string } & FloorShape): Promise<string> {
  let answer: string | undefined;
  setHandler(floorAnswerUpdate, (text) => void (answer = text));
  const shown = input.showWaits || input.promises;
  const plan = shown ? workflowInfo().parent?.workflowId : undefined;
  if (input.promises) patched(FLOOR_PATCH);
  let task: FloorTask = await local.send({ agentUrl: input.agentUrl, text: input.text });
  if (task.state === 'TASK_STATE_INPUT_REQUIRED') {
    // The question's report goes out with its alert, as the planner's first send posts it: signalled
    // from here, its acknowledgement would land while the answer's update is taken, and the server
    // would fail that workflow task (UnhandledCommand) and the update with it.
    if (shown) showWait('human');
    await local.alert({ kind: 'input', taskId: task.taskId, ...(plan ? { reportTo: plan } : {}) });
    await waitTimed(input.promises, () => condition(() => answer !== undefined));
    task = await local.send({ agentUrl: input.agentUrl, text: answer!, task });
  }
  if (task.state === 'TASK_STATE_AUTH_REQUIRED') {
    // The approval's is a signal, as the planner's: its acknowledgement lands while the watch waits.
    if (shown) showWait('operator');
    if (plan) void getExternalWorkflowHandle(plan).signal(floorStepWaitingSignal, 'operator');
    const watched = { agentUrl: input.agentUrl, task };
    task = await waitTimed(input.promises && input.approvalDeadline, () => watch(watched));
  }
  if (input.promises) upsertSearchAttributes([{ key: PlannerWaitingOn, value: 'none' }, { key: A2aTaskState, value: task.state }]);
  return task.state;
}

export async function FloorPlanWorkflow(input: { steps: { id: string; agentUrl: string; text: string }[] } & Omit<FloorShape, 'approvalDeadline'>): Promise<string> {
  const { showWaits, promises } = input;
  const shown = showWaits || promises;
  // No patch here: the planner's plan asks one only where its steps' reports come out of order.
  if (shown) setHandler(floorStepWaitingSignal, showWait);
  let state = 'TASK_STATE_COMPLETED';
  for (const step of input.steps) {
    state = await executeChild(FloorTaskWorkflow, { workflowId: `${workflowInfo().workflowId}.${step.id}`, args: [{ agentUrl: step.agentUrl, text: step.text, showWaits, promises, approvalDeadline: promises }] });
    if (shown) showWait('none'); // the step's end is its result: no report
    if (state !== 'TASK_STATE_COMPLETED') break;
  }
  return state;
}
