// One way to answer a question: the `answer` update (CLI, API), the task's `answer` signal (the
// Temporal UI) and the plan's relays (its own signal, an upstream A2A message) pass the same checks
// (workflows/delegated-task/answer-rules.ts), and a refusal reaches whoever sent the answer: a typed
// failure for the update, the task's and the plan's status and details for a signal.
import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import { answerTask } from '../client/delegated-task';
import { answerStep, startPlan } from '../client/plan';
import { answerSignal, statusQuery } from '../workflows/delegated-task/messages';
import { planAnswerSignal } from '../workflows/plan/messages';
import { ANSWER_REFUSED } from '../workflows/delegated-task/answer-rules';
import { startCodeReviewer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DIFF, waitForStatus } from './support/delegated';
import { DIFF_TEXT, planDoc, step, waitForPlan } from './support/plans';
import { eventually } from './support/wait';

const suite = plannerSuite('answers');
let reviewer: AgentHandle;
beforeAll(async () => {
  reviewer = await startCodeReviewer();
});
afterAll(() => reviewer?.close());

const STALE = 'the answer names turn 7, but the current question is turn 1';

it('refuses an update with a typed failure, and shows a refused signal in the status and the UI details', async () => {
  const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
  await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');

  const refused = await answerTask(suite.client, handle.workflowId, { text: 'main', turn: 7 }).catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (refused as WorkflowUpdateFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect(cause).toMatchObject({ type: ANSWER_REFUSED, message: `answer rejected: ${STALE}` });

  // The same answer by signal: the same check, and the refusal is shown, not only logged.
  await handle.signal(answerSignal, { text: 'main', turn: 7, from: 'an operator in the UI' });
  const shown = await waitForStatus(handle, (s) => s.refusedAnswer !== undefined, 'the refused answer in the status');
  expect(shown.refusedAnswer).toEqual({ reason: STALE, turn: 7, from: 'an operator in the UI' });
  const details = await eventually(async () => {
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    if (!meta.currentDetails.includes('Answer refused')) throw new Error(`details without the refusal: ${meta.currentDetails}`);
    return meta.currentDetails;
  }, 'the refusal in the UI details');
  expect(details).toContain(`**Answer refused** (an operator in the UI): ${STALE}`);

  // A good answer clears it and goes out.
  await handle.signal(answerSignal, { text: 'develop' });
  const result = await handle.result();
  expect(result.artifacts[0]?.parts[0]).toMatchObject({ data: { baseBranch: 'develop' } });
  expect((await handle.query(statusQuery)).refusedAnswer).toBeUndefined();
});

it("refuses a plan's relayed answer with the step's own words, and shows it on the plan's step", async () => {
  const { handle } = await startPlan(
    suite.client,
    { plan: planDoc('answers', { 'code-reviewer': reviewer.baseUrl }, [{ id: 'review', agent: 'code-reviewer', text: DIFF_TEXT }]) },
    {},
    { taskQueue: suite.queue },
  );
  suite.track(handle.workflowId, `${handle.workflowId}.review`);
  await waitForPlan(handle, (s) => step(s, 'review').waitingOn === 'human', 'the question');

  // Through the client (an update on the step) and through the UI (a signal on the plan): one check, one reason.
  await expect(answerStep(suite.client, handle.workflowId, 'review', { text: 'main', turn: 7 })).rejects.toThrow(STALE);
  await handle.signal(planAnswerSignal, { stepId: 'review', text: 'main', turn: 7 });
  const refused = await waitForPlan(handle, (s) => step(s, 'review').refusedAnswer !== undefined, "the refusal on the plan's step");
  expect(step(refused, 'review').refusedAnswer).toEqual({ reason: STALE, turn: 7, from: "the plan's answer signal" });

  await handle.signal(planAnswerSignal, { stepId: 'review', text: 'main' });
  const result = await handle.result();
  expect(result.steps.map((s) => s.state)).toEqual(['completed']);
});

itReplaysItsHistories(suite);
