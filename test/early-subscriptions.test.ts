// The subscription a streamed send holds for the approval's watch (activities/early-subscriptions.ts),
// against a real deployer agent: what happens while it is held reaches the watch that takes it, in
// order; one nobody takes is closed at the agent; a worker that stops closes what it holds.
import { AgentDirectory } from '../activities/agents';
import { EarlySubscriptions } from '../activities/early-subscriptions';
import { observeFrame } from '../activities/observe';
import type { A2AClient } from '../a2a';
import type { Observation } from '../workflows/delegated-task/messages';
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

  const taken = await early.take(client, taskId, new AbortController().signal);
  expect(taken).toBeDefined();
  expect(taken!.told).toBeUndefined(); // opened without a tell: nothing was told
  expect(early.size).toBe(0);
  expect(await early.take(client, taskId, new AbortController().signal)).toBeUndefined(); // taken once
  const states: string[] = [];
  for await (const frame of taken!.frames) {
    const state = observeFrame(frame, 'stream')?.status?.state;
    if (state && states.at(-1) !== state) states.push(state);
    if (state === 'TASK_STATE_COMPLETED') break;
  }
  expect(states[0]).toBe('TASK_STATE_AUTH_REQUIRED');
  expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
  expect(subscriptionsOf(taskId)).toHaveLength(1);
  await eventually(() => subscriptionsOf(taskId)[0]?.closedAt, 'the stream closed once the reader stopped');
});

it('what the task does before a watch takes the subscription is told, in order, each status newer; the watch learns the last told and still reads every frame', async () => {
  const slow = await startDeployer({ workMs: 300 }); // the resume is told on its own: the end comes after RESUME_REPORT_MS
  try {
    const slowClient = await agents.client({ name: 'slow-deployer', url: slow.baseUrl });
    const reply = await slowClient.sendMessage({ message: { messageId: `early-slow-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: DEPLOY }] } });
    const taskId = ('task' in reply ? reply.task : undefined)!.id;
    const early = new EarlySubscriptions();
    const told: Observation[] = [];
    early.open(slowClient, taskId, 60_000, async (o) => void told.push(o));
    await eventually(() => slow.log.subscriptions.find((s) => s.taskId === taskId)?.firstFrameAt, 'the held subscription at the agent');
    await slow.approve(taskId);
    await eventually(() => told.find((o) => o.status?.state === 'TASK_STATE_COMPLETED'), 'the end told');
    expect(told.map((o) => o.status?.state)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(told.every((o) => o.source === 'stream' && o.taskId === taskId && o.watchId === undefined)).toBe(true);
    expect(Date.parse(told[1]!.status!.timestamp!)).toBeGreaterThan(Date.parse(told[0]!.status!.timestamp!));
    expect(told[1]!.artifacts?.map((a) => a.name)).toContain('deploy-result.json'); // a snapshot: the artifacts so far

    const taken = (await early.take(slowClient, taskId, new AbortController().signal))!;
    expect(taken.told).toEqual(told[1]);
    const states: string[] = [];
    for await (const frame of taken.frames) {
      const state = observeFrame(frame, 'stream')?.status?.state;
      if (state && states.at(-1) !== state) states.push(state);
    }
    expect(states).toEqual(['TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  } finally {
    await slow.close();
  }
});

it('a resume followed at once by the end is told once, as the end', async () => {
  const early = new EarlySubscriptions();
  const taskId = await waitingTask();
  const told: Observation[] = [];
  early.open(client, taskId, 60_000, async (o) => void told.push(o));
  await eventually(() => subscriptionsOf(taskId)[0]?.firstFrameAt, 'the held subscription at the agent');
  await deployer.approve(taskId); // the deployer ends 20 ms after the approval
  await eventually(() => told[0], 'the end told');
  expect(told.map((o) => o.status?.state)).toEqual(['TASK_STATE_COMPLETED']);
  (await early.take(client, taskId, new AbortController().signal))!.close();
  await eventually(() => subscriptionsOf(taskId)[0]?.closedAt, 'closed without being read');
});

it('nothing is told once a watch has taken the subscription, and a tell that fails ends the telling', async () => {
  const early = new EarlySubscriptions();
  const [quiet, refused] = [await waitingTask(), await waitingTask()];
  const told: Observation[] = [];
  early.open(client, quiet, 60_000, async (o) => void told.push(o));
  await eventually(() => subscriptionsOf(quiet)[0]?.firstFrameAt, 'the held subscription at the agent');
  const taken = (await early.take(client, quiet, new AbortController().signal))!;
  await deployer.approve(quiet);
  const states: string[] = [];
  for await (const frame of taken.frames) states.push(observeFrame(frame, 'stream')?.status?.state ?? '');
  expect(states).toContain('TASK_STATE_COMPLETED');
  expect(told).toEqual([]);

  let tries = 0;
  early.open(client, refused, 60_000, async () => {
    tries++;
    throw new Error('the server is away');
  });
  await eventually(() => subscriptionsOf(refused)[0]?.firstFrameAt, 'the held subscription at the agent');
  await deployer.approve(refused);
  await eventually(async () => (await client.getTask({ id: refused })).status?.state === 'TASK_STATE_COMPLETED' || undefined, 'the refused task completed');
  const second = (await early.take(client, refused, new AbortController().signal))!;
  expect(tries).toBe(1);
  expect(second.told).toBeUndefined();
  for await (const frame of second.frames) if (observeFrame(frame, 'stream')?.status?.state === 'TASK_STATE_COMPLETED') break;
});

it("firstFrame gives the held subscription's first frame, once it is up; undefined for a task none is held for", async () => {
  const early = new EarlySubscriptions();
  const taskId = await waitingTask();
  expect(await early.firstFrame(client, taskId, 1_000)).toBeUndefined();
  early.open(client, taskId, 60_000);
  const frame = await early.firstFrame(client, taskId, 10_000);
  expect(observeFrame(frame!, 'stream')?.status?.state).toBe('TASK_STATE_AUTH_REQUIRED');
  expect(subscriptionsOf(taskId)[0]?.firstFrameAt).toBeDefined();
  // Still held, and the watch that takes it reads that frame first.
  const taken = (await early.take(client, taskId, new AbortController().signal))!;
  for await (const f of taken.frames) {
    expect(f).toBe(frame);
    break;
  }
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
  expect(await early.take(client, taskId, new AbortController().signal)).toBeUndefined();
});

it('a watch cancelled while it reads a taken subscription closes it; closeAll closes what is held', async () => {
  const early = new EarlySubscriptions();
  const [taken, held] = [await waitingTask(), await waitingTask()];
  early.open(client, taken, 60_000);
  early.open(client, held, 60_000);
  const cancel = new AbortController();
  const stream = (await early.take(client, taken, cancel.signal))!;
  const reading = (async () => {
    for await (const frame of stream.frames) if (observeFrame(frame, 'stream')?.status?.state === 'TASK_STATE_AUTH_REQUIRED') cancel.abort();
  })();
  await expect(reading).rejects.toThrow();
  await eventually(() => subscriptionsOf(taken)[0]?.closedAt, 'the taken subscription closed on cancel');

  await eventually(() => subscriptionsOf(held)[0]?.firstFrameAt, 'the other one held at the agent');
  early.closeAll();
  expect(early.size).toBe(0);
  await eventually(() => subscriptionsOf(held)[0]?.closedAt, 'the held subscription closed');
});
