// The planner against the seed's agents built on every SDK: @a2a-js/sdk 1.3.0, a2a-sdk (Python)
// 1.3.0 and a2a-go v2.4.0 (test/agents/sdk-agents.ts). Each scenario runs on the three SDKs at once;
// the last block records how each SDK behaves on the wire (docs/interop.md's table) and holds the
// suite to it, so a changed SDK shows up here first.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerTask } from '../client/delegated-task';
import { connectA2A, type A2AClient, type StreamResponse } from '../a2a';
import { BASE_BRANCH_QUESTION, MIGRATIONS_QUESTION } from './agents';
import { SDK_LABEL, SDKS, startSdkAgent, type Sdk, type SdkAgent } from './agents/sdk-agents';
import { startChildWorker, uniqueQueue } from './harness/planner';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { startCuttingProxy } from './support/cutting-proxy';
import { DEPLOY, DIFF, start, waitForStatus, type TaskHandle } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('interop');
const fastWatch = { heartbeatTimeout: '3s', firstHeartbeatTimeout: '3s', pollInitial: '200ms', pollMax: '1s' } as const;

interface Agents {
  /** One question; JSON-RPC first in its card. */
  reviewer: SdkAgent;
  /** Two questions; HTTP+JSON first. */
  reviewer2: SdkAgent;
  /** One approval; JSON-RPC first. */
  deployer: SdkAgent;
  /** Two approvals; HTTP+JSON first. */
  deployer2: SdkAgent;
  /** One approval; the card says no streaming. */
  pollOnly: SdkAgent;
}
const agents = {} as Record<Sdk, Agents>;

beforeAll(async () => {
  await Promise.all(
    SDKS.map(async (sdk) => {
      const [reviewer, reviewer2, deployer, deployer2, pollOnly] = await Promise.all([
        startSdkAgent(sdk, 'code-reviewer'),
        startSdkAgent(sdk, 'code-reviewer', { questions: 2, preferredBinding: 'HTTP+JSON' }),
        startSdkAgent(sdk, 'deployer'),
        startSdkAgent(sdk, 'deployer', { authRounds: 2, preferredBinding: 'HTTP+JSON' }),
        startSdkAgent(sdk, 'deployer', { streaming: false }),
      ]);
      agents[sdk] = { reviewer, reviewer2, deployer, deployer2, pollOnly };
    }),
  );
}, 90_000);

afterAll(async () => {
  await Promise.all(Object.values(agents).flatMap((a) => Object.values(a).map((x: SdkAgent) => x.close())));
});

/** The user messages of one workflow, as they arrived at the agent. */
const sent = (agent: SdkAgent, workflowId: string) => agent.messages.filter((m) => m.messageId.startsWith(`${workflowId}/`));
const requestsFor = (agent: SdkAgent, taskId: string, method?: string) =>
  agent.requests.filter((r) => r.taskId === taskId && (method === undefined || r.method === method));
const alertKeys = (workflowId: string) => new Set(suite.sink.forWorkflow(workflowId).map((a) => a.idempotencyKey));

function startOn(agent: SdkAgent, name: string, text: string, url = agent.baseUrl, extra: object = {}): Promise<TaskHandle> {
  return suite.start({ agent: { name, url }, message: { text }, planId: `interop-${agent.sdk}`, policies: { watch: fastWatch, ...extra } });
}

describe('code-reviewer (INPUT_REQUIRED)', () => {
  it.concurrent.each(SDKS)('%s over JSON-RPC: question, answer on the same taskId and contextId, completed with review.json', async (sdk) => {
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
    const review = result.artifacts.find((a) => a.name === 'review.json');
    expect(review?.parts[0]).toMatchObject({ data: { baseBranch: 'main', verdict: 'approve' } });

    const mine = sent(agent, handle.workflowId);
    expect(mine.map((m) => m.text)).toEqual([DIFF, 'main']);
    expect(mine[1]).toMatchObject({ taskId: q.taskId, contextId: q.contextId });
    expect(new Set(mine.map((m) => m.messageId)).size).toBe(2);
    const calls = requestsFor(agent, q.taskId!);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((r) => !r.path.startsWith('/a2a/jsonrpc'))).toEqual([]);
  });

  it.concurrent.each(SDKS)('%s over HTTP+JSON: asks twice, both answers on the same task, completed', async (sdk) => {
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
    const calls = requestsFor(agent, q1.taskId!);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((r) => !r.path.startsWith('/a2a/rest/'))).toEqual([]);
  });
});

describe('a task that ends at the agent while a human thinks', () => {
  it.concurrent.each(SDKS)('%s: the answer is refused, the planner asks GetTask and ends where the task ended (cancelled), sending nothing more', async (sdk) => {
    const agent = agents[sdk].reviewer;
    const handle = await startOn(agent, 'code-reviewer', DIFF);
    const q = await waitForStatus(handle, (s) => s.waitingOn === 'human', `${sdk}: the question`);
    // Someone cancels the task at the agent; the planner polls only every 10 min while a human thinks.
    const direct = await connectA2A(agent.baseUrl, { agentName: 'code-reviewer' });
    try {
      const canceled = await direct.cancelTask({ id: q.taskId! });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    } finally {
      await direct.close();
    }
    const reply = await answerTask(suite.client, handle.workflowId, { text: 'main', turn: 1 }).catch((e: unknown) => e);
    await handle.result().catch(() => undefined);
    const desc = await handle.describe();
    // Not failed with the agent's refusal of the answer: the run ends as the remote task did.
    expect({ sdk, status: desc.status.name }).toEqual({ sdk, status: 'CANCELLED' });
    expect(reply).toMatchObject({ state: 'TASK_STATE_CANCELED' });
    const mine = sent(agent, handle.workflowId);
    expect(mine.map((m) => m.text)).toEqual([DIFF, 'main']);
  });
});

describe('deployer (AUTH_REQUIRED)', () => {
  it.concurrent.each(SDKS)('%s over JSON-RPC: subscribes first, alerts with the approval URL, completes after the out-of-band approval', async (sdk) => {
    const agent = agents[sdk].deployer;
    const handle = await startOn(agent, 'deployer', DEPLOY);
    const waiting = await waitForStatus(handle, (s) => s.waitingOn === 'operator', `${sdk}: AUTH_REQUIRED`);
    const taskId = waiting.taskId!;
    expect(waiting.text).toBe(`An operator must approve this deploy at ${agent.baseUrl}/approve/${taskId}`);
    const alert = await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], `${sdk}: the auth alert`);
    expect(alert.body).toMatchObject({ kind: 'auth', agent: 'deployer', taskId, text: waiting.text });
    // Subscribe first, alert second: the subscription reached the agent before the alert left.
    const subscribed = requestsFor(agent, taskId, 'SubscribeToTask')[0];
    expect(subscribed).toBeDefined();
    expect(alert.at).toBeGreaterThanOrEqual(subscribed!.at);

    await agent.approve(taskId);
    const result = await handle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(result.artifacts.find((a) => a.name === 'deploy-result.json')?.parts[0]).toMatchObject({ data: { status: 'deployed', version: '2026.10.06-1' } });
    expect(sent(agent, handle.workflowId)).toHaveLength(1);
    expect(alertKeys(handle.workflowId).size).toBe(1);
    expect(requestsFor(agent, taskId).filter((r) => !r.path.startsWith('/a2a/jsonrpc'))).toEqual([]);
  });

  it.concurrent.each(SDKS)('%s over HTTP+JSON: two approvals, one alert each, then completed', async (sdk) => {
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
    const result = await handle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(alertKeys(handle.workflowId).size).toBe(2);
    expect(sent(agent, handle.workflowId)).toHaveLength(1);
    expect(requestsFor(agent, taskId).filter((r) => !r.path.startsWith('/a2a/rest/'))).toEqual([]);
  });

  it.concurrent.each(SDKS)('%s with streaming off: polls GetTask, never streams, completes after approval', async (sdk) => {
    const agent = agents[sdk].pollOnly;
    const handle = await startOn(agent, 'deployer', DEPLOY);
    const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', `${sdk}: AUTH_REQUIRED`);
    await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], `${sdk}: the auth alert`);
    await agent.approve(s.taskId!);
    expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
    expect(agent.requests.filter((r) => r.method === 'SubscribeToTask' || r.method === 'SendStreamingMessage')).toEqual([]);
    expect(requestsFor(agent, s.taskId!, 'GetTask').length).toBeGreaterThanOrEqual(1);
    expect(sent(agent, handle.workflowId)).toHaveLength(1);
  });
});

describe('races and faults', () => {
  it.concurrent.each(SDKS)('%s: an approval that lands before the planner subscribes is still seen', async (sdk) => {
    const agent = agents[sdk].deployer;
    const proxy = await startCuttingProxy(agent.baseUrl);
    try {
      // Every subscription is held 3 s on its way to the agent; the approval goes first.
      proxy.delay((r) => r.method === 'SubscribeToTask', 3000);
      const handle = await startOn(agent, 'deployer', DEPLOY, proxy.baseUrl);
      const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', `${sdk}: AUTH_REQUIRED`);
      const approvedAt = Date.now();
      await agent.approve(s.taskId!);
      const result = await handle.result();
      expect(result.state).toBe('TASK_STATE_COMPLETED');
      expect(result.artifacts.map((a) => a.name)).toContain('deploy-result.json');
      const subscriptions = requestsFor(agent, s.taskId!, 'SubscribeToTask');
      expect(subscriptions.every((r) => r.at >= approvedAt)).toBe(true);
      expect(sent(agent, handle.workflowId)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it.concurrent.each(SDKS)('%s: a subscription cut during AUTH_REQUIRED is followed by GetTask and a new subscription', async (sdk) => {
    const agent = agents[sdk].deployer;
    const proxy = await startCuttingProxy(agent.baseUrl);
    try {
      proxy.cutStreamAfterFirstFrame((r) => r.method === 'SubscribeToTask');
      const handle = await startOn(agent, 'deployer', DEPLOY, proxy.baseUrl);
      const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', `${sdk}: AUTH_REQUIRED`);
      await eventually(() => proxy.cut.length === 1, `${sdk}: the cut`);
      await eventually(() => requestsFor(agent, s.taskId!, 'SubscribeToTask').length >= 2, `${sdk}: a new subscription after the cut`);
      expect(requestsFor(agent, s.taskId!, 'GetTask').length).toBeGreaterThanOrEqual(1);
      await agent.approve(s.taskId!);
      expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
      expect(sent(agent, handle.workflowId)).toHaveLength(1);
      expect(alertKeys(handle.workflowId).size).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('a planner worker killed while the operators approve (all SDKs at once) resumes every watch on a new worker', async () => {
    const queue = uniqueQueue('interop-restart');
    const env = { PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: suite.sink.url };
    let worker = await startChildWorker(queue, env);
    try {
      const runs = await Promise.all(
        SDKS.map(async (sdk) => {
          const agent = agents[sdk].deployer;
          const handle = await start(suite.client, queue, { agent: { name: 'deployer', url: agent.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });
          suite.track(handle.workflowId);
          const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', `${sdk}: AUTH_REQUIRED`, 30_000);
          await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], `${sdk}: the auth alert`);
          return { sdk, agent, handle, taskId: s.taskId! };
        }),
      );
      await worker.kill('SIGKILL');
      // The approvals land while no worker runs; the watches move to the next one.
      await Promise.all(runs.map((r) => r.agent.approve(r.taskId)));
      worker = await startChildWorker(queue, env);
      const results = await Promise.all(runs.map((r) => r.handle.result()));
      expect(results.map((r) => r.state)).toEqual(SDKS.map(() => 'TASK_STATE_COMPLETED'));
      for (const r of runs) {
        expect({ sdk: r.sdk, messages: sent(r.agent, r.handle.workflowId).length }).toEqual({ sdk: r.sdk, messages: 1 });
        expect({ sdk: r.sdk, alerts: alertKeys(r.handle.workflowId).size }).toEqual({ sdk: r.sdk, alerts: 1 });
      }
    } finally {
      await worker.kill('SIGTERM');
    }
  }, 120_000);
});

// ---- What each SDK does on the wire -------------------------------------------------------------

type Binding = 'JSONRPC' | 'HTTP+JSON';
interface Observed {
  streamAtInputRequired: string;
  streamAtAuthRequired: string;
  streamAtTerminal: string;
  subscribeToFinishedTask: string;
  listTasksWithoutAuth: string;
  getUnknownTask: string;
  sendToFinishedTask: string;
  createPushConfig: string;
}
const observed: Partial<Record<`${Sdk} ${Binding}`, Observed>> = {};

/** 'closes' when the stream ends within `ms` after the frame that `until` picks, else 'stays open'. */
async function streamUntil(frames: AsyncIterable<StreamResponse>, until: (f: StreamResponse) => boolean, ms = 1500): Promise<{ verdict: string; iterator: AsyncIterator<StreamResponse>; taskId?: string }> {
  const iterator = frames[Symbol.asyncIterator]();
  let taskId: string | undefined;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return { verdict: 'closed before that state', iterator };
    const f = next.value;
    taskId ??= 'task' in f ? f.task.id : 'statusUpdate' in f ? f.statusUpdate.taskId : undefined;
    if (until(f)) break;
  }
  const timer = new Promise<'open'>((r) => setTimeout(() => r('open'), ms));
  const after = await Promise.race([iterator.next(), timer]);
  if (after === 'open') return { verdict: 'stays open', iterator, taskId };
  return { verdict: after.done ? 'closes' : 'sends more', iterator, taskId };
}

const stateIs = (state: string) => (f: StreamResponse) =>
  ('statusUpdate' in f && f.statusUpdate.status.state === state) || ('task' in f && f.task.status.state === state);

function outcome(e: unknown): string {
  const x = e as { name?: string; jsonRpcCode?: number; status?: number; reason?: string };
  const code = x.jsonRpcCode !== undefined ? ` ${x.jsonRpcCode}` : x.status !== undefined ? ` HTTP ${x.status}` : '';
  return `${x.name ?? 'Error'}${code}${x.reason ? ` ${x.reason}` : ''}`;
}
async function attempt(call: () => Promise<unknown>, ok: (v: unknown) => string = () => 'ok'): Promise<string> {
  try {
    return ok(await call());
  } catch (e) {
    return outcome(e);
  }
}

async function observe(sdk: Sdk, binding: Binding): Promise<Observed> {
  const { reviewer, deployer } = agents[sdk];
  const message = (text: string, id: string) => ({ messageId: `observe-${sdk}-${binding}-${id}`, role: 'ROLE_USER' as const, parts: [{ text }] });
  const rc: A2AClient = await connectA2A(reviewer.baseUrl, { agentName: 'code-reviewer', preferredBindings: [binding] });
  const dc: A2AClient = await connectA2A(deployer.baseUrl, { agentName: 'deployer', preferredBindings: [binding] });
  const abort = new AbortController();
  try {
    const input = await streamUntil(rc.sendStreamingMessage({ message: message(DIFF, 'review') }, { signal: abort.signal }), stateIs('TASK_STATE_INPUT_REQUIRED'));
    const auth = await streamUntil(dc.sendStreamingMessage({ message: message(DEPLOY, 'deploy') }, { signal: abort.signal }), stateIs('TASK_STATE_AUTH_REQUIRED'));
    const deployTask = auth.taskId!;
    await deployer.approve(deployTask);
    let terminal = 'not seen: the stream had closed at AUTH_REQUIRED';
    if (auth.verdict === 'stays open') {
      const rest = await streamUntil({ [Symbol.asyncIterator]: () => auth.iterator }, stateIs('TASK_STATE_COMPLETED'));
      terminal = rest.verdict;
    }
    await eventually(async () => (await dc.getTask({ id: deployTask })).status.state === 'TASK_STATE_COMPLETED', `${sdk}: the observed deploy to complete`);
    const frameKind = (f: StreamResponse) => Object.keys(f)[0] ?? '?';
    const subscribeToFinishedTask = await attempt(async () => {
      for await (const f of dc.subscribeToTask({ id: deployTask }, { idleTimeoutMs: 3000 })) return `first frame: ${frameKind(f)}`;
      return 'closes with no frame';
    }, (v) => String(v));
    return {
      streamAtInputRequired: input.verdict,
      streamAtAuthRequired: auth.verdict,
      streamAtTerminal: terminal,
      subscribeToFinishedTask,
      listTasksWithoutAuth: await attempt(() => dc.listTasks({ pageSize: 5 }), () => 'ok'),
      getUnknownTask: await attempt(() => dc.getTask({ id: 'no-such-task' })),
      sendToFinishedTask: await attempt(() => dc.sendMessage({ message: { ...message('again', 'again'), taskId: deployTask } })),
      createPushConfig: await attempt(() => dc.createTaskPushNotificationConfig({ taskId: deployTask, url: 'http://127.0.0.1:9/push' })),
    };
  } finally {
    abort.abort();
    await rc.close();
    await dc.close();
  }
}

describe('what each SDK does on the wire (docs/interop.md)', () => {
  it.concurrent.each(SDKS.flatMap((sdk) => (['JSONRPC', 'HTTP+JSON'] as const).map((binding) => [sdk, binding] as const)))(
    '%s over %s',
    async (sdk, binding) => {
      const o = await observe(sdk, binding);
      observed[`${sdk} ${binding}`] = o;
      expect(o).toEqual(EXPECTED[sdk][binding]);
    },
  );

  afterAll(() => {
    const rows = Object.entries(observed).map(([k, o]) => ({ sdk: `${SDK_LABEL[k.split(' ')[0] as Sdk]} ${k.split(' ')[1]}`, ...o }));
    process.stderr.write(`\nInterop observations:\n${JSON.stringify(rows, null, 1)}\n`);
    if (process.env.PLANNER_TEST_DIR) writeFileSync(join(process.env.PLANNER_TEST_DIR, 'interop-observations.json'), JSON.stringify(rows, null, 2));
  });
});

// What the suite observed (docs/interop.md shows the same table); a changed SDK fails here.
/** How an error reads on each binding: `-32004 UNSUPPORTED_OPERATION` or `HTTP 400 UNSUPPORTED_OPERATION`. */
const wire = (binding: Binding, name: string, code: number, http: number, reason: string): string =>
  `${name} ${binding === 'JSONRPC' ? code : `HTTP ${http}`} ${reason}`;
const streams = { streamAtInputRequired: 'closes', streamAtAuthRequired: 'stays open', streamAtTerminal: 'closes' };
/** @a2a-js/sdk 1.3.0 and a2a-sdk (Python) 1.3.0 answer alike; both follow the spec's error table. */
const specLike = (b: Binding): Observed => ({
  ...streams,
  subscribeToFinishedTask: wire(b, 'UnsupportedOperationError', -32004, 400, 'UNSUPPORTED_OPERATION'),
  listTasksWithoutAuth: 'ok',
  getUnknownTask: wire(b, 'TaskNotFoundError', -32001, 404, 'TASK_NOT_FOUND'),
  sendToFinishedTask: wire(b, 'UnsupportedOperationError', -32004, 400, 'UNSUPPORTED_OPERATION'),
  createPushConfig: wire(b, 'PushNotificationNotSupportedError', -32003, 400, 'PUSH_NOTIFICATION_NOT_SUPPORTED'),
});
const goLike = (b: Binding): Observed => ({
  ...streams,
  // "no active execution": a2a-go#438; the watch treats it as "ask GetTask".
  subscribeToFinishedTask: wire(b, 'TaskNotFoundError', -32001, 404, 'TASK_NOT_FOUND'),
  listTasksWithoutAuth: wire(b, 'UnauthenticatedError', -31401, 401, 'UNAUTHENTICATED'),
  getUnknownTask: wire(b, 'TaskNotFoundError', -32001, 404, 'TASK_NOT_FOUND'),
  // INVALID_PARAMS on the wire, read as UnsupportedOperationError (a2a/errors/, TERMINAL_TASK_REFUSAL).
  sendToFinishedTask: wire(b, 'UnsupportedOperationError', -32602, 400, 'INVALID_PARAMS'),
  createPushConfig: wire(b, 'PushNotificationNotSupportedError', -32003, 400, 'PUSH_NOTIFICATION_NOT_SUPPORTED'),
});
const EXPECTED: Record<Sdk, Record<Binding, Observed>> = {
  js: { JSONRPC: specLike('JSONRPC'), 'HTTP+JSON': specLike('HTTP+JSON') },
  python: { JSONRPC: specLike('JSONRPC'), 'HTTP+JSON': specLike('HTTP+JSON') },
  go: { JSONRPC: goLike('JSONRPC'), 'HTTP+JSON': goLike('HTTP+JSON') },
};

itReplaysItsHistories(suite);
