// Push notifications: a per-task config with its own token, a receiver that checks it, and a slow
// backstop poll instead of a held stream.
import pino from 'pino';
import { pushToken, pushUrl } from '../activities/push-token';
import { startPushReceiver, type PushReceiver } from '../server/push/standalone';
import { startDeployer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const SECRET = 'test-secret-0123456789abcdef';
let receiver: PushReceiver;
let deployer: AgentHandle;
const suite = plannerSuite('push', async (s) => {
  receiver = await startPushReceiver({ temporal: s.client, secret: SECRET, logger: pino({ level: 'silent' }) });
  deployer = await startDeployer({ pushNotifications: true });
  return { PLANNER_WEBHOOK_BASE_URL: receiver.url, PLANNER_WEBHOOK_SECRET: SECRET };
});
afterAll(() => Promise.all([receiver?.close(), deployer?.close()]));

const post = (url: string, body: unknown, token?: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', ...(token ? { 'x-a2a-notification-token': token } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

it('learns of the approval through push, with only a slow backstop poll running, and deletes the config at the end', async () => {
  const handle = await suite.start({
    agent: { name: 'deployer', url: deployer.baseUrl },
    message: { text: DEPLOY },
    policies: { watch: { pushBackstop: '60s' } },
  });
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
  // The status says AUTH_REQUIRED as soon as the send returns; the alert comes once the watch
  // (here: push registration plus the backstop poll) is in place.
  await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], 'the auth alert');
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

it('parks an approval wait on push: after the first look and the alert nothing is held, a backstop GetTask polls, the pushed approval ends it', async () => {
  const handle = await suite.start({
    agent: { name: 'deployer', url: deployer.baseUrl },
    message: { text: DEPLOY },
    // Compressed: a backstop that starts at 300 ms and grows with the wait's age to 1 s.
    policies: { watch: { pushBackstop: '300ms', inputPollMax: '1s' } },
  });
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
  await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], 'the auth alert');
  const held = async (): Promise<number> => (await handle.describe()).raw.pendingActivities?.length ?? 0;
  await eventually(async () => (await held()) === 0 || undefined, 'no activity held while parked on push');
  const polls = (): number => deployer.log.requests.filter((r) => r.method === 'GetTask' && r.taskId === s.taskId).length;
  const before = polls();
  await eventually(() => polls() >= before + 2 || undefined, 'two backstop polls');
  expect(deployer.log.subscriptions.filter((x) => x.taskId === s.taskId)).toHaveLength(0);
  expect(suite.sink.forWorkflow(handle.workflowId)).toHaveLength(1); // the backstop polls alert nobody again

  await deployer.approve(s.taskId!);
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
});

it('refuses pushes without the task token, for other tasks, for unknown workflows, and bad frames', async () => {
  const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });
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

itReplaysItsHistories(suite);
