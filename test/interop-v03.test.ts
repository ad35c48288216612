// The planner against the seed's agents built on the two A2A v0.3 SDKs (issue 22): @a2a-js/sdk
// 0.3.14 and a2a-sdk (Python) 0.3.26 (test/agents/sdk-agents-v03.ts), each card offering only v0.3.
// The cases the v1.0 agents run in interop.test.ts, on both v0.3 bindings where they were run on
// v1.0's: every call reaches the agent under its v0.3 name, and the planner behaves as on v1.0.
import { answerTask, resolveSend } from '../client/delegated-task';
import { connectA2A } from '../a2a';
import { BASE_BRANCH_QUESTION, MIGRATIONS_QUESTION } from './agents';
import type { SdkAgent, V03Sdk } from './agents/sdk-agents';
import { startV03Agent, V03_SDKS } from './agents/sdk-agents-v03';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { startCuttingProxy } from './support/cutting-proxy';
import { DEPLOY, DIFF, waitForStatus, type TaskHandle } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('interop-v03');
const fastWatch = { heartbeatTimeout: '3s', firstHeartbeatTimeout: '3s', pollInitial: '200ms', pollMax: '1s' } as const;

/** Every method a v0.3 agent may see from the planner; a v1.0 name here would mean the wrong protocol. */
const V03_METHODS = new Set(['message/send', 'message/stream', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe']);

interface Agents {
  reviewer: SdkAgent;
  reviewer2: SdkAgent;
  deployer: SdkAgent;
  deployer2: SdkAgent;
  pollOnly: SdkAgent;
}
const agents = {} as Record<V03Sdk, Agents>;

beforeAll(async () => {
  for (const sdk of V03_SDKS) {
    const [reviewer, reviewer2, deployer, deployer2, pollOnly] = await Promise.all([
      startV03Agent(sdk, 'code-reviewer'),
      startV03Agent(sdk, 'code-reviewer', { questions: 2, preferredBinding: 'HTTP+JSON' }),
      startV03Agent(sdk, 'deployer'),
      startV03Agent(sdk, 'deployer', { authRounds: 2, preferredBinding: 'HTTP+JSON' }),
      startV03Agent(sdk, 'deployer', { streaming: false }),
    ]);
    agents[sdk] = { reviewer, reviewer2, deployer, deployer2, pollOnly };
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(agents).flatMap((a) => Object.values(a).map((x: SdkAgent) => x.close())));
});

const sent = (agent: SdkAgent, workflowId: string) => agent.messages.filter((m) => m.messageId.startsWith(`${workflowId}/`));
const requestsFor = (agent: SdkAgent, taskId: string, method?: string) =>
  agent.requests.filter((r) => r.taskId === taskId && (method === undefined || r.method === method));
const alertKeys = (workflowId: string) => new Set(suite.sink.forWorkflow(workflowId).map((a) => a.idempotencyKey));
/** The calls on a task that were not v0.3 methods on the expected binding's path. */
const offProtocol = (agent: SdkAgent, taskId: string, path: string) =>
  requestsFor(agent, taskId).filter((r) => !V03_METHODS.has(r.method) || !r.path.startsWith(path));

function startOn(agent: SdkAgent, name: string, text: string, url = agent.baseUrl): Promise<TaskHandle> {
  return suite.start({ agent: { name, url }, message: { text }, planId: `interop-${agent.sdk}`, policies: { watch: fastWatch } });
}

describe('the card', () => {
  it.each(V03_SDKS)('%s: a v0.3-only card is spoken to in v0.3, on the binding it lists first', async (sdk) => {
    const client = await connectA2A(agents[sdk].reviewer2.baseUrl, { agentName: 'code-reviewer' });
    try {
      expect({ version: client.a2aVersion, binding: client.binding }).toEqual({ version: '0.3', binding: 'HTTP+JSON' });
      expect(client.url).toBe(`${agents[sdk].reviewer2.baseUrl}/a2a/rest`);
    } finally {
      await client.close();
    }
  });
});

describe('code-reviewer (input-required)', () => {
  it.concurrent.each(V03_SDKS)('%s over JSON-RPC: question, answer on the same taskId and contextId, completed with review.json', async (sdk) => {
    const agent = agents[sdk].reviewer;
    const handle = await startOn(agent, 'code-reviewer', DIFF);
    const q = await waitForStatus(handle, (s) => s.waitingOn === 'human', `${sdk}: the question`);
    expect(q).toMatchObject({ text: BASE_BRANCH_QUESTION, state: 'TASK_STATE_INPUT_REQUIRED', turn: 1 });
    const alert = await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], `${sdk}: the input alert`);
    expect(alert.body).toMatchObject({ kind: 'input', taskId: q.taskId, text: BASE_BRANCH_QUESTION });

    const reply = await answerTask(suite.client, handle.workflowId, { text: 'main', turn: 1 });
    expect(reply.state).toBe('TASK_STATE_COMPLETED');
    const result = await handle.result();
    expect(result).toMatchObject({ state: 'TASK_STATE_COMPLETED', taskId: q.taskId, contextId: q.contextId });
    expect(result.artifacts.find((a) => a.name === 'review.json')?.parts[0]).toMatchObject({ data: { baseBranch: 'main', verdict: 'approve' } });

    const mine = sent(agent, handle.workflowId);
    expect(mine.map((m) => m.text)).toEqual([DIFF, 'main']);
    expect(mine[1]).toMatchObject({ taskId: q.taskId, contextId: q.contextId });
    expect(new Set(mine.map((m) => m.messageId)).size).toBe(2);
    expect(requestsFor(agent, q.taskId!).length).toBeGreaterThan(0);
    expect(offProtocol(agent, q.taskId!, '/a2a/jsonrpc')).toEqual([]);
  });

  it.concurrent.each(V03_SDKS)('%s over HTTP+JSON: asks twice, both answers on the same task, completed', async (sdk) => {
    const agent = agents[sdk].reviewer2;
    const handle = await startOn(agent, 'code-reviewer', DIFF);
    const q1 = await waitForStatus(handle, (s) => s.turn === 1 && s.waitingOn === 'human', `${sdk}: question 1`);
    expect(q1.text).toBe(BASE_BRANCH_QUESTION);
    const r1 = await answerTask(suite.client, handle.workflowId, { text: 'main', turn: 1 });
    expect(r1).toMatchObject({ turn: 1, state: 'TASK_STATE_INPUT_REQUIRED', text: MIGRATIONS_QUESTION });
    const q2 = await waitForStatus(handle, (s) => s.turn === 2 && s.waitingOn === 'human', `${sdk}: question 2`);
    expect(q2).toMatchObject({ text: MIGRATIONS_QUESTION, taskId: q1.taskId });
    const r2 = await answerTask(suite.client, handle.workflowId, { text: 'yes', turn: 2 });
    expect(r2.state).toBe('TASK_STATE_COMPLETED');
    const result = await handle.result();
    expect(result.artifacts.find((a) => a.name === 'review.json')?.parts[0]).toMatchObject({
      data: { baseBranch: 'main', comments: expect.arrayContaining([expect.objectContaining({ body: 'Migration files checked: yes' })]) },
    });
    const mine = sent(agent, handle.workflowId);
    expect(mine.map((m) => m.text)).toEqual([DIFF, 'main', 'yes']);
    expect(mine.slice(1).every((m) => m.taskId === q1.taskId && m.contextId === q1.contextId)).toBe(true);
    expect(new Set(mine.map((m) => m.messageId)).size).toBe(3);
    expect(requestsFor(agent, q1.taskId!).length).toBeGreaterThan(0);
    expect(offProtocol(agent, q1.taskId!, '/a2a/rest/v1/')).toEqual([]);
  });

  it.concurrent.each(V03_SDKS)('%s: a task cancelled at the agent while a human thinks ends the run cancelled, not failed', async (sdk) => {
    const agent = agents[sdk].reviewer;
    const handle = await startOn(agent, 'code-reviewer', DIFF);
    const q = await waitForStatus(handle, (s) => s.waitingOn === 'human', `${sdk}: the question`);
    const direct = await connectA2A(agent.baseUrl, { agentName: 'code-reviewer' });
    try {
      expect((await direct.cancelTask({ id: q.taskId! })).status.state).toBe('TASK_STATE_CANCELED');
    } finally {
      await direct.close();
    }
    const reply = await answerTask(suite.client, handle.workflowId, { text: 'main', turn: 1 }).catch((e: unknown) => e);
    await handle.result().catch(() => undefined);
    expect({ sdk, status: (await handle.describe()).status.name }).toEqual({ sdk, status: 'CANCELLED' });
    expect(reply).toMatchObject({ state: 'TASK_STATE_CANCELED' });
    expect(sent(agent, handle.workflowId).map((m) => m.text)).toEqual([DIFF, 'main']);
  });
});

describe('deployer (auth-required)', () => {
  it.concurrent.each(V03_SDKS)('%s over JSON-RPC: resubscribes first, alerts with the approval URL, completes after the out-of-band approval', async (sdk) => {
    const agent = agents[sdk].deployer;
    const handle = await startOn(agent, 'deployer', DEPLOY);
    const waiting = await waitForStatus(handle, (s) => s.waitingOn === 'operator', `${sdk}: auth-required`);
    const taskId = waiting.taskId!;
    expect(waiting.text).toBe(`An operator must approve this deploy at ${agent.baseUrl}/approve/${taskId}`);
    const alert = await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], `${sdk}: the auth alert`);
    expect(alert.body).toMatchObject({ kind: 'auth', agent: 'deployer', taskId, text: waiting.text });
    const subscribed = requestsFor(agent, taskId, 'tasks/resubscribe')[0];
    expect(subscribed).toBeDefined();
    expect(alert.at).toBeGreaterThanOrEqual(subscribed!.at);

    await agent.approve(taskId);
    const result = await handle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(result.artifacts.find((a) => a.name === 'deploy-result.json')?.parts[0]).toMatchObject({ data: { status: 'deployed', version: '2026.10.06-1' } });
    expect(sent(agent, handle.workflowId)).toHaveLength(1);
    expect(alertKeys(handle.workflowId).size).toBe(1);
    expect(offProtocol(agent, taskId, '/a2a/jsonrpc')).toEqual([]);
  });

  it.concurrent.each(V03_SDKS)('%s over HTTP+JSON: two approvals, one alert each, then completed', async (sdk) => {
    const agent = agents[sdk].deployer2;
    const handle = await startOn(agent, 'deployer', DEPLOY);
    let taskId = '';
    for (let round = 1; round <= 2; round++) {
      const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator' && x.authRounds === round, `${sdk}: approval round ${round}`);
      expect(s.text).toContain(`(approval ${round} of 2)`);
      await eventually(() => alertKeys(handle.workflowId).size >= round, `${sdk}: alert ${round}`);
      taskId = s.taskId!;
      await agent.approve(taskId);
    }
    expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
    expect(alertKeys(handle.workflowId).size).toBe(2);
    expect(sent(agent, handle.workflowId)).toHaveLength(1);
    expect(requestsFor(agent, taskId, 'tasks/resubscribe').length).toBeGreaterThanOrEqual(1);
    expect(offProtocol(agent, taskId, '/a2a/rest/v1/')).toEqual([]);
  });

  it.concurrent.each(V03_SDKS)('%s with streaming off: polls tasks/get, never streams, completes after approval', async (sdk) => {
    const agent = agents[sdk].pollOnly;
    const handle = await startOn(agent, 'deployer', DEPLOY);
    const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', `${sdk}: auth-required`);
    await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], `${sdk}: the auth alert`);
    await agent.approve(s.taskId!);
    expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
    expect(agent.requests.filter((r) => r.method === 'tasks/resubscribe' || r.method === 'message/stream')).toEqual([]);
    expect(requestsFor(agent, s.taskId!, 'tasks/get').length).toBeGreaterThanOrEqual(1);
    expect(sent(agent, handle.workflowId)).toHaveLength(1);
  });
});

describe('races and faults', () => {
  it.concurrent.each(V03_SDKS)('%s: an approval that lands before the planner resubscribes is still seen', async (sdk) => {
    const agent = agents[sdk].deployer;
    const proxy = await startCuttingProxy(agent.baseUrl);
    try {
      proxy.delay((r) => r.method === 'tasks/resubscribe', 3000);
      const handle = await startOn(agent, 'deployer', DEPLOY, proxy.baseUrl);
      const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', `${sdk}: auth-required`);
      const approvedAt = Date.now();
      await agent.approve(s.taskId!);
      const result = await handle.result();
      expect(result.state).toBe('TASK_STATE_COMPLETED');
      expect(result.artifacts.map((a) => a.name)).toContain('deploy-result.json');
      expect(requestsFor(agent, s.taskId!, 'tasks/resubscribe').every((r) => r.at >= approvedAt)).toBe(true);
      expect(sent(agent, handle.workflowId)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it.concurrent.each(V03_SDKS)('%s: a subscription cut during auth-required is followed by tasks/get and a new subscription', async (sdk) => {
    const agent = agents[sdk].deployer;
    const proxy = await startCuttingProxy(agent.baseUrl);
    try {
      // a2a-js 0.3 opens a subscription with the task; a2a-python 0.3 sends nothing until the task moves.
      proxy.cutStreamAfterFirstFrame((r) => r.method === 'tasks/resubscribe', { afterHeaders: sdk === 'python-v03' });
      const handle = await startOn(agent, 'deployer', DEPLOY, proxy.baseUrl);
      const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', `${sdk}: auth-required`);
      await eventually(() => proxy.cut.length === 1, `${sdk}: the cut`);
      await eventually(() => requestsFor(agent, s.taskId!, 'tasks/resubscribe').length >= 2, `${sdk}: a new subscription after the cut`);
      expect(requestsFor(agent, s.taskId!, 'tasks/get').length).toBeGreaterThanOrEqual(1);
      await agent.approve(s.taskId!);
      expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
      expect(sent(agent, handle.workflowId)).toHaveLength(1);
      expect(alertKeys(handle.workflowId).size).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});

describe("typed errors from each v0.3 SDK's answers, on both bindings", () => {
  const cases = V03_SDKS.flatMap((sdk) => (['JSONRPC', 'HTTP+JSON'] as const).map((binding) => [sdk, binding] as const));
  it.each(cases)('%s over %s', async (sdk, binding) => {
    const client = await connectA2A(agents[sdk].reviewer.baseUrl, { agentName: 'code-reviewer', preferredBindings: [binding] });
    const nameOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: Error) => e.name);
    try {
      const message = (text: string, taskId?: string) => ({ messageId: `errors-${sdk}-${binding}-${text}`, role: 'ROLE_USER' as const, parts: [{ text }], ...(taskId ? { taskId } : {}) });
      const first = await client.sendMessage({ message: message('diff +x') });
      const taskId = 'task' in first ? first.task.id : '';
      expect((await client.cancelTask({ id: taskId })).status.state).toBe('TASK_STATE_CANCELED');
      expect({
        unknownTask: await nameOf(client.getTask({ id: 'no-such-task' })),
        answerToFinishedTask: await nameOf(client.sendMessage({ message: message('main', taskId) })),
        cancelFinishedTask: await nameOf(client.cancelTask({ id: taskId })),
        listTasks: await client.listTasks({}).then(() => 'ok', (e: Error) => `${e.name}: ${/A2A v0\.3 has no ListTasks/.test(e.message)}`),
      }).toEqual({ unknownTask: 'TaskNotFoundError', answerToFinishedTask: 'UnsupportedOperationError', cancelFinishedTask: 'TaskNotCancelableError', listTasks: 'UnsupportedOperationError: true' });
    } finally {
      await client.close();
    }
  });
});

describe('an ambiguous first send (v0.3 has no ListTasks)', () => {
  it.concurrent.each(V03_SDKS)('%s: a lost reply with no task id learned asks the operator, naming why; a resend then goes on', async (sdk) => {
    const agent = agents[sdk].pollOnly;
    const proxy = await startCuttingProxy(agent.baseUrl);
    try {
      const workflowId = `ambiguous-v03-${sdk}-${Date.now()}`;
      proxy.cutNext((body) => body.includes(`${workflowId}/`)); // the first message/send reaches the agent; its reply is lost
      const handle = await suite.start({ agent: { name: 'deployer', url: proxy.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } }, workflowId);
      const s = await waitForStatus(handle, (x) => x.unresolvedSend !== undefined, `${sdk}: the unresolved send`, 30_000);
      expect(s.unresolvedSend).toMatch(/A2A v0\.3 has no ListTasks/);
      await eventually(() => suite.sink.forWorkflow(workflowId).find((a) => a.body.kind === 'unresolved'), `${sdk}: the unresolved alert`);
      expect(sent(agent, workflowId)).toHaveLength(1);
      // Neither SDK knows a messageId it has seen: the operator's resend makes a second task.
      await resolveSend(suite.client, workflowId, { action: 'resend' });
      const waiting = await waitForStatus(handle, (x) => x.waitingOn === 'operator' && x.unresolvedSend === undefined, `${sdk}: auth-required after the resend`);
      await agent.approve(waiting.taskId!);
      expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
      const ids = sent(agent, workflowId).map((m) => m.messageId);
      expect({ arrivals: ids.length, distinct: new Set(ids).size }).toEqual({ arrivals: 2, distinct: 1 }); // the same messageId, resent
    } finally {
      await proxy.close();
    }
  });
});

itReplaysItsHistories(suite);
