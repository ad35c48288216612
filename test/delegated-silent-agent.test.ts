// Waits on the agent that nobody used to be told about (issue 24, item 4): a first message the agent
// never answers, a task whose every subscription stalls after its snapshot, and an agent that is slow
// but live on the lookups of a retried send. Each is in the inbox as "waiting on the agent" from the
// start, with its age, and a person is alerted after the documented time; the slow agent's task
// completes under the default call timeout.
import { listInbox, type InboxEntry } from '../client/inbox';
import { startQuietAgent, type QuietAgent } from './support/quiet-agent';
import { DEPLOY, waitForStatus } from './support/delegated';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

const suite = plannerSuite('silent-agent');
const agents: QuietAgent[] = [];
afterAll(() => Promise.all(agents.map((a) => a.close())));

async function quiet(...args: Parameters<typeof startQuietAgent>): Promise<QuietAgent> {
  const agent = await startQuietAgent(...args);
  agents.push(agent);
  return agent;
}

const inboxEntry = async (workflowId: string): Promise<InboxEntry | undefined> => (await listInbox(suite.client)).find((e) => e.workflowId === workflowId);

it('a first message the agent never answers: in the inbox from the start, then an unanswered alert', async () => {
  const agent = await quiet('never-answers');
  const handle = await suite.start({
    agent: { name: 'quiet', url: agent.baseUrl },
    message: { text: DEPLOY },
    policies: { sendTimeout: '1m', watch: { unreachableAfter: '2s' } },
  });
  const entry = await eventually(() => inboxEntry(handle.workflowId), 'the first send in the inbox', 20_000);
  expect(entry).toMatchObject({ waitingOn: 'agent', agent: 'quiet', text: "waiting on the agent's reply to the first message" });
  expect(entry.waitingSince.getTime()).toBeLessThanOrEqual(Date.now());
  const status = await waitForStatus(handle, (s) => s.waitingOn === 'agent', 'waiting on the agent');
  expect(status).toMatchObject({ waitingFor: "the agent's reply to the first message" });
  expect(status.taskId).toBeUndefined();

  const [alert] = await eventually(() => {
    const a = suite.sink.forWorkflow(handle.workflowId);
    return a.length > 0 && a;
  }, 'the unanswered alert', 30_000);
  expect(alert!.body).toMatchObject({ kind: 'unanswered', agent: 'quiet' });
  expect(alert!.body.text).toMatch(/^quiet has not answered the first message \(.+\/0\) \(no reply since .+, attempt 1; the planner keeps waiting\)$/);
  // Sent once: the local first attempt's hold ran out without a reply, so the activity that took
  // over looks for the message (ListTasks) instead of sending it again.
  expect(agent.methods).toEqual(['SendStreamingMessage', 'ListTasks']);
  await handle.cancel();
});

it('a task whose every subscription stalls: waiting on the agent in the inbox, then a working alert', async () => {
  const agent = await quiet('stalls-subscriptions');
  const handle = await suite.start({
    agent: { name: 'quiet', url: agent.baseUrl },
    message: { text: DEPLOY },
    policies: { working: { after: '3s', onDeadline: 'remind', remindEvery: '1h' }, watch: { idleTimeout: '1s', pollInitial: '200ms', pollMax: '1s' } },
  });
  const entry = await eventually(async () => {
    const e = await inboxEntry(handle.workflowId);
    return e?.taskId !== undefined && e;
  }, 'the working task in the inbox', 20_000);
  expect(entry).toMatchObject({ waitingOn: 'agent', state: 'TASK_STATE_WORKING', taskId: 'quiet-task-1', text: 'waiting on the agent to finish its work (WORKING)' });
  expect(await handle.query('status')).toMatchObject({ waitingOn: 'agent', waitingFor: 'the agent to finish its work (WORKING)' });

  const [alert] = await eventually(() => {
    const a = suite.sink.forWorkflow(handle.workflowId);
    return a.length > 0 && a;
  }, 'the working alert', 30_000);
  expect(alert!.body).toMatchObject({ kind: 'working', taskId: 'quiet-task-1' });
  expect(agent.methods).toContain('SubscribeToTask');
  await handle.cancel();
  await eventually(() => !agent.methods.includes('CancelTask') ? false : true, 'CancelTask at the agent', 20_000);
});

it('an agent 35 s slow on the lookups after a 503 keeps its task under the default call timeout', async () => {
  const agent = await quiet('slow-after-503', { slowMs: 35_000 });
  const handle = await suite.start({ agent: { name: 'quiet', url: agent.baseUrl }, message: { text: DEPLOY } });
  const result = await handle.result();
  expect(result.state).toBe('TASK_STATE_COMPLETED');
  // Refused once, looked for (slowly) once, sent once more: nothing sent twice, nothing given up.
  expect(agent.methods.filter((m) => m === 'SendStreamingMessage')).toHaveLength(2);
  expect(agent.methods.filter((m) => m === 'ListTasks')).toHaveLength(1);
}, 150_000);

itReplaysItsHistories(suite);
