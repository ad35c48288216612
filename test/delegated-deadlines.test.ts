// Deadline policies for both waits, and cancelling the workflow while it waits.
import { WorkflowFailedError } from '@temporalio/client';
import { connectA2A } from '../a2a';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, DIFF, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('deadlines');
let reviewer: AgentHandle;
let deployer: AgentHandle;

beforeAll(async () => {
  reviewer = await startCodeReviewer();
  deployer = await startDeployer();
});
afterAll(() => Promise.all([reviewer?.close(), deployer?.close()]));

async function failureOf(p: Promise<unknown>): Promise<{ type?: string; message: string }> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause as { type?: string; message: string };
}

it('remind: alerts again every interval until the answer comes', async () => {
  const handle = await suite.start({
    agent: { name: 'code-reviewer', url: reviewer.baseUrl },
    message: { text: DIFF },
    policies: { input: { after: '1s', onDeadline: 'remind', remindEvery: '1s' } },
  });
  await eventually(() => suite.sink.forWorkflow(handle.workflowId).length >= 3, 'the first alert and two reminders', 15_000);
  const keys = suite.sink.forWorkflow(handle.workflowId).map((a) => a.idempotencyKey);
  expect(new Set(keys).size).toBe(keys.length); // each reminder is its own alert, not a retry
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'human', 'still waiting');
  expect(s.state).toBe('TASK_STATE_INPUT_REQUIRED');
  await handle.executeUpdate('answer', { args: [{ text: 'main' }] });
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
});

it('fail: fails the workflow with a typed reason when nobody answers', async () => {
  const handle = await suite.start({
    agent: { name: 'code-reviewer', url: reviewer.baseUrl },
    message: { text: DIFF },
    policies: { input: { after: '1s', onDeadline: 'fail' } },
  });
  const cause = await failureOf(handle.result());
  expect(cause.type).toBe('InputDeadlineExceeded');
  expect(cause.message).toMatch(/waited for an answer \(TASK_STATE_INPUT_REQUIRED\) longer than 1s/);
});

it('fail at once: a deadline that falls due as the question is published fails no workflow task', async () => {
  const handle = await suite.start({
    agent: { name: 'code-reviewer', url: reviewer.baseUrl },
    message: { text: DIFF },
    policies: { input: { after: '0.0001ms', onDeadline: 'fail' } },
  });
  expect((await failureOf(handle.result())).type).toBe('InputDeadlineExceeded');
  const failed = (await handle.fetchHistory()).events!.filter((e) => e.workflowTaskFailedEventAttributes);
  expect(failed.map((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
  expect(suite.sink.forWorkflow(handle.workflowId).map((a) => a.body.kind)).toEqual(['input']); // the question's alert went before the end
});

it('cancel: sends CancelTask when the approval does not come, then fails', async () => {
  const handle = await suite.start({
    agent: { name: 'deployer', url: deployer.baseUrl },
    message: { text: DEPLOY },
    policies: { auth: { after: '1s', onDeadline: 'cancel' } },
  });
  const cause = await failureOf(handle.result());
  expect(cause.type).toBe('AuthDeadlineExceeded');
  expect(cause.message).toMatch(/sent CancelTask \(remote state now TASK_STATE_CANCELED\)/);
  const s = await waitForStatus(handle, () => true, 'status');
  expect(await deployer.taskState(s.taskId!)).toBe('TASK_STATE_CANCELED');
});

it.each([
  ['INPUT_REQUIRED', 'human'],
  ['AUTH_REQUIRED', 'operator'],
] as const)('cancelling the workflow while it waits in %s cancels the agent task', async (_state, waitingOn) => {
  const agent = waitingOn === 'human' ? { name: 'code-reviewer', url: reviewer.baseUrl } : { name: 'deployer', url: deployer.baseUrl };
  const handle = await suite.start({ agent, message: { text: waitingOn === 'human' ? DIFF : DEPLOY } });
  const s = await waitForStatus(handle, (x) => x.waitingOn === waitingOn, 'the wait');
  await handle.cancel();
  await expect(handle.result()).rejects.toThrow(WorkflowFailedError);
  const desc = await handle.describe();
  expect(desc.status.name).toBe('CANCELLED');
  const agentHandle = waitingOn === 'human' ? reviewer : deployer;
  expect(await agentHandle.taskState(s.taskId!)).toBe('TASK_STATE_CANCELED');
  const final = await handle.query('status');
  expect(final).toMatchObject({ state: 'TASK_STATE_CANCELED' });
});


it('a task cancelled at the agent by someone else ends the workflow as cancelled', async () => {
  const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
  const other = await connectA2A(deployer.baseUrl);
  try {
    expect((await other.cancelTask({ id: s.taskId! })).status.state).toBe('TASK_STATE_CANCELED');
  } finally {
    await other.close();
  }
  await expect(handle.result()).rejects.toThrow(WorkflowFailedError);
  expect((await handle.describe()).status.name).toBe('CANCELLED');
  expect(await handle.query('status')).toMatchObject({ state: 'TASK_STATE_CANCELED', waitingOn: 'none' });
});

itReplaysItsHistories(suite);
