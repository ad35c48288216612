// Push notifications: a per-task config with its own token, a receiver that checks it, and a slow
// backstop poll instead of a held stream.
import type { Client } from '@temporalio/client';
import pino from 'pino';
import { pushToken, pushUrl } from '../activities/push-token';
import { startPushReceiver, type PushReceiver } from '../client/push-receiver';
import { startDeployer, type AgentHandle } from './agents';
import { connectClient, startWorkers, uniqueQueue, type RunningWorkers } from './harness/planner';
import { DEPLOY, replayAll, start, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const SECRET = 'test-secret-0123456789abcdef';
let client: Client;
let workers: RunningWorkers;
let receiver: PushReceiver;
let deployer: AgentHandle;
const queue = uniqueQueue('push');
const started: string[] = [];

beforeAll(async () => {
  client = await connectClient();
  receiver = await startPushReceiver({ temporal: client, secret: SECRET, logger: pino({ level: 'silent' }) });
  deployer = await startDeployer({ pushNotifications: true });
  workers = await startWorkers(queue, { PLANNER_WEBHOOK_BASE_URL: receiver.url, PLANNER_WEBHOOK_SECRET: SECRET });
});

afterAll(async () => {
  await workers?.stop();
  await Promise.all([receiver?.close(), deployer?.close()]);
  await client?.connection.close();
});

const post = (url: string, body: unknown, token?: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', ...(token ? { 'x-a2a-notification-token': token } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

it('learns of the approval through push, with only a slow backstop poll running, and deletes the config at the end', async () => {
  const handle = await start(client, queue, {
    agent: { name: 'deployer', url: deployer.baseUrl },
    message: { text: DEPLOY },
    policies: { watch: { pushBackstop: '60s' } },
  });
  started.push(handle.workflowId);
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
  expect(deployer.log.requests.filter((r) => r.method === 'CreateTaskPushNotificationConfig')).toHaveLength(1);
  expect(deployer.log.subscriptions).toHaveLength(0);

  const approvedAt = Date.now();
  await deployer.approve(s.taskId!);
  const result = await handle.result();
  expect(Date.now() - approvedAt).toBeLessThan(2000); // the 60 s backstop poll cannot have seen it
  expect(result.state).toBe('TASK_STATE_COMPLETED');
  const delivered = deployer.log.pushDeliveries.filter((d) => d.taskId === s.taskId);
  expect(delivered.length).toBeGreaterThan(0);
  expect(delivered.every((d) => d.status === 204)).toBe(true);
  await eventually(() => deployer.log.requests.some((r) => r.method === 'DeleteTaskPushNotificationConfig'), 'the config deleted');
});

it('refuses pushes without the task token, for other tasks, for unknown workflows, and bad frames', async () => {
  const handle = await start(client, queue, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });
  started.push(handle.workflowId);
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
  const taskId = s.taskId!;
  const url = pushUrl(receiver.url, handle.workflowId, taskId);
  const token = pushToken(SECRET, handle.workflowId, taskId);
  const frame = { statusUpdate: { taskId, contextId: s.contextId, status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() } } };

  expect((await post(url, frame)).status).toBe(401);
  expect((await post(url, frame, 'forged')).status).toBe(401);
  expect((await post(url, frame, pushToken(SECRET, handle.workflowId, 'other-task'))).status).toBe(401);
  const unknown = pushUrl(receiver.url, 'no-such-workflow', taskId);
  expect((await post(unknown, frame, pushToken(SECRET, 'no-such-workflow', taskId))).status).toBe(404);
  const bad = await post(url, { statusUpdate: { taskId, contextId: s.contextId, status: { state: 'TASK_STATE_BOGUS' } } }, token);
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: string }).error).toMatch(/statusUpdate\.status\.state/);
  expect((await post(url, 'not json', token)).status).toBe(400);
  const wrongTask = await post(url, { ...frame, statusUpdate: { ...frame.statusUpdate, taskId: 'other' } }, token);
  expect(wrongTask.status).toBe(400);

  // None of that moved the workflow; the real approval still does.
  expect((await waitForStatus(handle, () => true, 'status')).state).toBe('TASK_STATE_AUTH_REQUIRED');
  await deployer.approve(taskId);
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
});

it('replays every history of this suite without nondeterminism', async () => {
  const { replayed, errors } = await replayAll(client, started);
  expect(errors).toEqual([]);
  expect(replayed).toBe(started.length);
});
