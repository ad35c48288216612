// Deadline policies for both waits, and cancelling the workflow while it waits.
import type { Client } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { connectA2A } from '../a2a';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { connectClient, startWorkers, uniqueQueue, type RunningWorkers } from './harness/planner';
import { startAlertSink, type AlertSink } from './support/alert-sink';
import { DEPLOY, DIFF, replayAll, start, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

let client: Client;
let workers: RunningWorkers;
let sink: AlertSink;
let reviewer: AgentHandle;
let deployer: AgentHandle;
const queue = uniqueQueue('deadlines');
const started: string[] = [];

beforeAll(async () => {
  client = await connectClient();
  sink = await startAlertSink();
  reviewer = await startCodeReviewer();
  deployer = await startDeployer();
  workers = await startWorkers(queue, { PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: sink.url });
});

afterAll(async () => {
  await workers?.stop();
  await Promise.all([sink?.close(), reviewer?.close(), deployer?.close()]);
  await client?.connection.close();
});

async function failureOf(p: Promise<unknown>): Promise<{ type?: string; message: string }> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause as { type?: string; message: string };
}

it('remind: alerts again every interval until the answer comes', async () => {
  const handle = await start(client, queue, {
    agent: { name: 'code-reviewer', url: reviewer.baseUrl },
    message: { text: DIFF },
    policies: { input: { after: '1s', onDeadline: 'remind', remindEvery: '1s' } },
  });
  started.push(handle.workflowId);
  await eventually(() => sink.forWorkflow(handle.workflowId).length >= 3, 'the first alert and two reminders', 15_000);
  const keys = sink.forWorkflow(handle.workflowId).map((a) => a.idempotencyKey);
  expect(new Set(keys).size).toBe(keys.length); // each reminder is its own alert, not a retry
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'human', 'still waiting');
  expect(s.state).toBe('TASK_STATE_INPUT_REQUIRED');
  await handle.executeUpdate('answer', { args: [{ text: 'main' }] });
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
});

it('fail: fails the workflow with a typed reason when nobody answers', async () => {
  const handle = await start(client, queue, {
    agent: { name: 'code-reviewer', url: reviewer.baseUrl },
    message: { text: DIFF },
    policies: { input: { after: '1s', onDeadline: 'fail' } },
  });
  started.push(handle.workflowId);
  const cause = await failureOf(handle.result());
  expect(cause.type).toBe('InputDeadlineExceeded');
  expect(cause.message).toMatch(/waited for an answer \(TASK_STATE_INPUT_REQUIRED\) longer than 1s/);
});

it('cancel: sends CancelTask when the approval does not come, then fails', async () => {
  const handle = await start(client, queue, {
    agent: { name: 'deployer', url: deployer.baseUrl },
    message: { text: DEPLOY },
    policies: { auth: { after: '1s', onDeadline: 'cancel' } },
  });
  started.push(handle.workflowId);
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
  const handle = await start(client, queue, { agent, message: { text: waitingOn === 'human' ? DIFF : DEPLOY } });
  started.push(handle.workflowId);
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
  const handle = await start(client, queue, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });
  started.push(handle.workflowId);
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

it('replays every history of this suite without nondeterminism', async () => {
  const { replayed, errors } = await replayAll(client, started);
  expect(errors).toEqual([]);
  expect(replayed).toBe(started.length);
});
