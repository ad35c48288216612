// Push notifications from A2A v0.3 agents (issue 22): the planner registers its webhook with
// tasks/pushNotificationConfig/set, the agent posts its v0.3 Task there (a2a-js 0.3.14 and
// a2a-python 0.3.26 both post the whole `kind`-tagged task), the receiver lifts it to v1.0, and the
// run learns of the approval from the push, with only a slow backstop poll and no subscription.
// The agents stream nothing: a2a-python 0.3 sends no push for a task once the message/stream that
// started it is left (its background consumer persists events but does not push; docs/interop.md).
import pino from 'pino';
import { connectA2A } from '../a2a';
import { startPushReceiver, type PushReceiver } from '../server/push/standalone';
import type { SdkAgent, V03Sdk } from './agents/sdk-agents';
import { startV03Agent, V03_SDKS } from './agents/sdk-agents-v03';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const SECRET = 'test-secret-v03-0123456789abcdef';
let receiver: PushReceiver;
const deployers = {} as Record<V03Sdk, SdkAgent>;
const suite = plannerSuite('interop-v03-push', async (s) => {
  receiver = await startPushReceiver({ temporal: s.client, secret: SECRET, logger: pino({ level: 'silent' }) });
  for (const sdk of V03_SDKS) deployers[sdk] = await startV03Agent(sdk, 'deployer', { push: true, streaming: false });
  return { PLANNER_WEBHOOK_BASE_URL: receiver.url, PLANNER_WEBHOOK_SECRET: SECRET };
});
afterAll(() => Promise.all([receiver?.close(), ...Object.values(deployers).map((d) => d.close())]));

it.concurrent.each(V03_SDKS)('%s: learns of the approval through a v0.3 push, with no subscription and only a 10-minute backstop poll', async (sdk) => {
  const agent = deployers[sdk];
  const handle = await suite.start({ agent: { name: 'deployer', url: agent.baseUrl }, message: { text: DEPLOY }, policies: { watch: { pushBackstop: '10m' } } });
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', `${sdk}: auth-required`);
  await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], `${sdk}: the auth alert`);
  expect(agent.requests.filter((r) => r.taskId === s.taskId && r.method === 'tasks/pushNotificationConfig/set')).toHaveLength(1);

  await agent.approve(s.taskId!);
  // The backstop poll is 10 minutes away: only a push can end the run within the test's time.
  const result = await handle.result();
  expect(result.state).toBe('TASK_STATE_COMPLETED');
  expect(agent.requests.filter((r) => r.method === 'tasks/resubscribe' || r.method === 'message/stream')).toEqual([]);
  const history = await handle.fetchHistory();
  const observed = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'observe');
  expect(observed.length).toBeGreaterThan(0);
  await eventually(() => agent.requests.some((r) => r.method === 'tasks/pushNotificationConfig/delete'), `${sdk}: the config deleted`);
}, 90_000);

it.each(V03_SDKS)('%s: push configs over both v0.3 bindings: set, get, list, delete, as v1.0 objects', async (sdk) => {
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    const client = await connectA2A(deployers[sdk].baseUrl, { agentName: 'deployer', preferredBindings: [binding] });
    try {
      const sent = await client.sendMessage({ message: { messageId: `push-${sdk}-${binding}`, role: 'ROLE_USER', parts: [{ text: DEPLOY }] } });
      const taskId = 'task' in sent ? sent.task.id : '';
      const url = `${receiver.url}/a2a/push/none/${taskId}`;
      const created = await client.createTaskPushNotificationConfig({ taskId, url, token: 'tok' });
      expect({ binding, created }).toMatchObject({ binding, created: { taskId, url, token: 'tok' } });
      expect(created.id).toBeTruthy();
      expect(await client.getTaskPushNotificationConfig({ taskId, id: created.id! })).toMatchObject({ taskId, url });
      // a2a-python 0.3's HTTP+JSON implements neither list (HTTP 500) nor delete (no route).
      if (!(sdk === 'python-v03' && binding === 'HTTP+JSON')) {
        expect((await client.listTaskPushNotificationConfigs({ taskId })).configs.map((c) => c.url)).toContain(url);
        await client.deleteTaskPushNotificationConfig({ taskId, id: created.id! });
        expect((await client.listTaskPushNotificationConfigs({ taskId })).configs.map((c) => c.url)).not.toContain(url);
      }
      await client.cancelTask({ id: taskId });
    } finally {
      await client.close();
    }
  }
});

itReplaysItsHistories(suite);
