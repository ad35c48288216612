// Questions (INPUT_REQUIRED) that race, expire at the agent, outlive their run, or reuse an id.
import { WorkflowFailedError } from '@temporalio/client';
import { connectA2A } from '../a2a';
import { answerTask } from '../client/delegated-task';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { startWorkers, uniqueQueue, type RunningWorkers } from './harness/planner';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, DIFF, eventTypes, start, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';
import { answerUpdate, observeSignal } from '../workflows/delegated-task/messages';
import { localActivityType } from '../client/history';

const suite = plannerSuite('questions');
let reviewer: AgentHandle;
beforeAll(async () => {
  reviewer = await startCodeReviewer();
});
afterAll(() => reviewer?.close());

const agent = () => ({ name: 'code-reviewer', url: reviewer.baseUrl });
const sentTo = (taskId: string | undefined) => reviewer.log.userMessages.filter((m) => m.taskId === taskId);

describe('with the workers stopped, so that several messages land in one activation', () => {
  const queue = uniqueQueue('questions-paused');
  let workers: RunningWorkers | undefined;
  const run = async () => (workers = await startWorkers(queue, { PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: suite.sink.url }));
  afterEach(async () => {
    await workers?.stop();
    workers = undefined;
  });

  it('refuses an answer that arrives together with a newer question, and binds the next one to that question', async () => {
    await run();
    const handle = await start(suite.client, queue, { agent: agent(), message: { text: DIFF } });
    suite.track(handle.workflowId);
    const q1 = await waitForStatus(handle, (x) => x.waitingOn === 'human' && x.turn === 1, 'question 1');
    await workers!.stop();
    // While no worker runs: the agent reports a newer question (as its push notification would) ...
    await handle.signal(observeSignal, {
      source: 'push',
      taskId: q1.taskId!,
      status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: new Date().toISOString(), text: 'Which commit is the base?' },
    });
    // ... and an answer written for question 1 arrives before anyone has seen the new one.
    const answering = handle.executeUpdate(answerUpdate, { args: [{ text: 'main' }] }).then(
      (r) => ({ ok: r }),
      (e: unknown) => ({ err: e as Error }),
    );
    await new Promise((r) => setTimeout(r, 1000));
    await run();
    const outcome = await answering;
    expect('err' in outcome && `${outcome.err.message} ${String((outcome.err as { cause?: unknown }).cause)}`).toMatch(/asked something new since question 1/);
    expect(sentTo(q1.taskId)).toHaveLength(0); // nothing went to the agent on the wrong question

    const q2 = await waitForStatus(handle, (x) => x.waitingOn === 'human' && x.turn === 2, 'question 2 published');
    expect(q2.text).toBe('Which commit is the base?');
    const reply = await answerTask(suite.client, handle.workflowId, { text: 'main', turn: 2 });
    expect(reply.turn).toBe(2);
    expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses an answer to a first question not yet published, so no update is left pending when the run ends', async () => {
    const deployer = await startDeployer();
    try {
      await run();
      const handle = await start(suite.client, queue, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });
      suite.track(handle.workflowId);
      const a = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
      await workers!.stop();
      await handle.signal(observeSignal, {
        source: 'push',
        taskId: a.taskId!,
        status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: new Date().toISOString(), text: 'Which environment?' },
      });
      const early = handle.executeUpdate(answerUpdate, { args: [{ text: 'staging' }] }).then(
        () => 'answered',
        (e: unknown) => `rejected: ${String((e as { cause?: unknown }).cause ?? e)}`,
      );
      await new Promise((r) => setTimeout(r, 1000));
      await run();
      const outcome = await Promise.race([early, new Promise((r) => setTimeout(() => r('still pending after 10 s'), 10_000))]);
      expect(outcome).toMatch(/rejected: .*question that is not published yet/);

      const q = await waitForStatus(handle, (x) => x.waitingOn === 'human' && x.turn === 1, 'question 1 published');
      expect(q.text).toBe('Which environment?');
      await answerTask(suite.client, handle.workflowId, { text: 'staging', turn: 1 });
      const again = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED again');
      await deployer.approve(again.taskId!);
      expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
      // Every update the workflow accepted was completed by it before the run closed.
      const types = eventTypes(await handle.fetchHistory());
      expect(types.WorkflowExecutionUpdateCompleted).toBe(types.WorkflowExecutionUpdateAccepted);
    } finally {
      await deployer.close();
    }
  });

  it('gives an answer in flight its reason when the workflow is cancelled, before the run closes', async () => {
    await run();
    const handle = await start(suite.client, queue, { agent: agent(), message: { text: DIFF } });
    suite.track(handle.workflowId);
    await waitForStatus(handle, (x) => x.waitingOn === 'human', 'the question');
    await workers!.stop();
    await handle.cancel();
    const answering = handle.executeUpdate(answerUpdate, { args: [{ text: 'main' }] }).then(
      (r) => ({ ok: r }),
      (e: unknown) => ({ err: e as Error }),
    );
    await new Promise((r) => setTimeout(r, 1000));
    await run();
    await expect(handle.result()).rejects.toThrow(WorkflowFailedError);
    const outcome = await answering;
    expect('err' in outcome).toBe(true);
    const history = await handle.fetchHistory();
    const types = eventTypes(history);
    // The update completed (with its reason) in the workflow, not failed by the server after the close.
    expect(types.WorkflowExecutionUpdateCompleted ?? 0).toBe(1);
    expect(types.WorkflowExecutionCanceled).toBe(1);
  });
});

it('notices a task cancelled at the agent while a human thinks, without an input deadline', async () => {
  const handle = await suite.start({ agent: agent(), message: { text: DIFF }, policies: { watch: { inputPoll: '500ms' } } });
  const q = await waitForStatus(handle, (x) => x.waitingOn === 'human', 'the question');
  const other = await connectA2A(reviewer.baseUrl);
  try {
    expect((await other.cancelTask({ id: q.taskId! })).status.state).toBe('TASK_STATE_CANCELED');
  } finally {
    await other.close();
  }
  const ended = await Promise.race([
    handle.result().then(() => 'completed', () => 'closed'),
    new Promise((r) => setTimeout(() => r('still waiting after 15 s'), 15_000)),
  ]);
  expect(ended).toBe('closed');
  expect((await handle.describe()).status.name).toBe('CANCELLED');
});

it("takes an answer given the moment the question's alert arrives (the send posts it, before its workflow task completes)", async () => {
  const handle = await suite.start({ agent: agent(), message: { text: DIFF } });
  const alert = await suite.sink.first(handle.workflowId);
  const reply = await answerTask(suite.client, handle.workflowId, { text: 'main' });
  expect(reply.turn).toBe(1);
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
  const { taskId } = await waitForStatus(handle, () => true, 'status');
  expect(alert.body).toMatchObject({ kind: 'input', taskId });
  expect(alert.body.text).toContain(BASE_BRANCH_QUESTION);
  expect(suite.sink.forWorkflow(handle.workflowId)).toHaveLength(1);
  // The first send posted it: the history holds no alertOperator marker.
  const markers = (await handle.fetchHistory()).events!.flatMap((e) => (e.markerRecordedEventAttributes ? [localActivityType(e)] : []));
  expect(markers).not.toContain('alertOperator');
});

it('has the wait post the question\'s alert when the send could not, under the same key, once', async () => {
  const workflowId = `refused-${uniqueQueue('id')}`;
  suite.sink.refuseNext(workflowId);
  const handle = await suite.start({ agent: agent(), message: { text: DIFF } }, workflowId);
  const alert = await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], "the question's alert");
  const refused = suite.sink.refused.filter((a) => a.body.workflowId === handle.workflowId);
  expect(refused).toHaveLength(1);
  expect(refused[0]!.idempotencyKey).toBe(alert.idempotencyKey);
  await answerTask(suite.client, handle.workflowId, { text: 'main' });
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
  expect(suite.sink.forWorkflow(handle.workflowId)).toHaveLength(1);
});

it('scopes message ids and alert keys to the execution chain, so a reused workflow id starts afresh', async () => {
  const workflowId = `reused-${uniqueQueue('id')}`;
  const first = await suite.start({ agent: agent(), message: { text: DIFF } }, workflowId);
  await waitForStatus(first, (x) => x.waitingOn === 'human', 'question of run 1');
  await answerTask(suite.client, workflowId, { text: 'main' });
  await first.result();
  const second = await suite.start({ agent: agent(), message: { text: DIFF } }, workflowId);
  const q2 = await waitForStatus(second, (x) => x.waitingOn === 'human', 'question of run 2');
  const firsts = reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${workflowId}/`) && m.taskId === undefined);
  expect(firsts).toHaveLength(2);
  expect(new Set(firsts.map((m) => m.messageId)).size).toBe(2); // the agent sees two distinct messages
  const alerts = await eventually(() => {
    const a = suite.sink.forWorkflow(workflowId);
    return a.length >= 2 && a;
  }, 'both runs alerted');
  expect(new Set(alerts.map((a) => a.idempotencyKey)).size).toBe(2); // neither alert is taken for a retry of the other
  await answerTask(suite.client, workflowId, { text: 'main' });
  expect((await second.result()).taskId).toBe(q2.taskId);
});

it("polls a question less often as it ages (inputPoll growing to inputPollMax), and still answers", async () => {
  const handle = await suite.start({ agent: agent(), message: { text: DIFF }, policies: { watch: { inputPoll: '100ms', inputPollMax: '400ms' } } });
  const q = await waitForStatus(handle, (x) => x.waitingOn === 'human', 'the question');
  const polls = (): number => reviewer.log.requests.filter((r) => r.method === 'GetTask' && r.taskId === q.taskId).length;
  await new Promise((r) => setTimeout(r, 6000));
  // A fixed 100 ms poll would have asked ~60 times in 6 s; growing to 400 ms it asks at most ~20.
  const asked = polls();
  expect(asked).toBeGreaterThanOrEqual(3);
  expect(asked).toBeLessThanOrEqual(20);
  expect((await answerTask(suite.client, handle.workflowId, { text: 'main' })).state).toBe('TASK_STATE_COMPLETED');
  const types = eventTypes(await handle.fetchHistory());
  expect(types.MarkerRecorded).toBeGreaterThanOrEqual(1); // the input-poll-grows patch, asked once growth began
});

itReplaysItsHistories(suite);
