// The subscription a streamed send holds for the approval's watch (activities/early-subscriptions.ts),
// against a real deployer agent: what happens while it is held reaches the watch that takes it, in
// order; one nobody takes is closed at the agent; a worker that stops closes what it holds.
import { AgentDirectory } from '../activities/agents';
import { EarlySubscriptions } from '../activities/early-subscriptions';
import { observeFrame } from '../activities/observe';
import type { A2AClient } from '../a2a';
import { DEPLOY } from './support/delegated';
import { startDeployer, type AgentHandle } from './agents';
import { eventually } from './support/wait';

let deployer: AgentHandle;
let agents: AgentDirectory;
let client: A2AClient;

beforeAll(async () => {
  deployer = await startDeployer();
  agents = new AgentDirectory();
  client = await agents.client({ name: 'deployer', url: deployer.baseUrl });
});
afterAll(async () => {
  await agents?.close();
  await deployer?.close();
});

/** A deploy task, stopped at AUTH_REQUIRED. */
async function waitingTask(): Promise<string> {
  const reply = await client.sendMessage({ message: { messageId: `early-${Date.now()}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: DEPLOY }] } });
  const task = 'task' in reply ? reply.task : undefined;
  expect(task?.status?.state).toBe('TASK_STATE_AUTH_REQUIRED');
  return task!.id;
}

const subscriptionsOf = (taskId: string) => deployer.log.subscriptions.filter((s) => s.taskId === taskId);

it('the watch that takes the held subscription reads every frame since it was opened, the approval included, from the one SubscribeToTask', async () => {
  const early = new EarlySubscriptions();
  const taskId = await waitingTask();
  early.open(client, taskId, 60_000);
  await eventually(() => subscriptionsOf(taskId)[0]?.firstFrameAt, 'the held subscription at the agent');
  await deployer.approve(taskId); // while nobody reads the stream yet

  const stream = early.take(client, taskId, new AbortController().signal);
  expect(stream).toBeDefined();
  expect(early.size).toBe(0);
  expect(early.take(client, taskId, new AbortController().signal)).toBeUndefined(); // taken once
  const states: string[] = [];
  for await (const frame of stream!) {
    const state = observeFrame(frame, 'stream')?.status?.state;
    if (state && states.at(-1) !== state) states.push(state);
    if (state === 'TASK_STATE_COMPLETED') break;
  }
  expect(states[0]).toBe('TASK_STATE_AUTH_REQUIRED');
  expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
  expect(subscriptionsOf(taskId)).toHaveLength(1);
  await eventually(() => subscriptionsOf(taskId)[0]?.closedAt, 'the stream closed once the reader stopped');
});

it('a subscription nobody takes is closed at the agent once its time to be taken is over', async () => {
  const early = new EarlySubscriptions(300);
  const taskId = await waitingTask();
  early.open(client, taskId, 60_000);
  early.open(client, taskId, 60_000); // one per task
  await eventually(() => subscriptionsOf(taskId)[0]?.firstFrameAt, 'the held subscription at the agent');
  await eventually(() => subscriptionsOf(taskId)[0]?.closedAt, 'the unclaimed subscription closed');
  expect(subscriptionsOf(taskId)).toHaveLength(1);
  expect(early.size).toBe(0);
  expect(early.take(client, taskId, new AbortController().signal)).toBeUndefined();
});

it('a watch cancelled while it reads a taken subscription closes it; closeAll closes what is held', async () => {
  const early = new EarlySubscriptions();
  const [taken, held] = [await waitingTask(), await waitingTask()];
  early.open(client, taken, 60_000);
  early.open(client, held, 60_000);
  const cancel = new AbortController();
  const stream = early.take(client, taken, cancel.signal)!;
  const reading = (async () => {
    for await (const frame of stream) if (observeFrame(frame, 'stream')?.status?.state === 'TASK_STATE_AUTH_REQUIRED') cancel.abort();
  })();
  await expect(reading).rejects.toThrow();
  await eventually(() => subscriptionsOf(taken)[0]?.closedAt, 'the taken subscription closed on cancel');

  await eventually(() => subscriptionsOf(held)[0]?.firstFrameAt, 'the other one held at the agent');
  early.closeAll();
  expect(early.size).toBe(0);
  await eventually(() => subscriptionsOf(held)[0]?.closedAt, 'the held subscription closed');
});
