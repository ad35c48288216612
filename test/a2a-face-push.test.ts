// The planner's A2A face for upstream callers, part two: push-notification configs (a real webhook
// receiver on loopback gets the seed plan's changes, once each, with the caller's token; a webhook
// that fails twice still gets each change once; a deleted config gets nothing more), the webhook
// URLs refused, and per-caller scoping with two tokens (another caller's task is not found).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningServer } from '../server/main';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { call, startApi, TOKEN } from './support/api';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';
import { PlannerWaitingSince } from '../workflows/search-attributes';

const OTHER = 'a-second-caller-token-0123456789';
/** The scoping test's own caller, and one for a face whose queue no worker polls. */
const MINE = 'the-scoping-tests-own-token-42';
const LONELY = 'a-caller-whose-planner-has-no-worker';
// Seals the configs' token and credentials for history (server) and opens them (worker).
const WEBHOOK_SECRET = 'webhook-secret-of-this-suite-0123';
const suite = plannerSuite('a2a-face-push', () => ({ PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET }));
let reviewer: AgentHandle;
let deployer: AgentHandle;
let api: RunningServer;

/** One POST the receiver got: its path, headers and body, and what it answered. */
interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, { status?: { state: string }; artifact?: { name?: string }; taskId: string }>;
  answered: number;
}

/** A webhook receiver on loopback; paths under /flaky/ answer 503 to the first two attempts of each delivery. */
function startReceiver(): Promise<{ server: Server; url: string; got: Received[] }> {
  const got: Received[] = [];
  const attempts = new Map<string, number>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      const answered = req.url!.startsWith('/flaky/') && n <= 2 ? 503 : 200;
      got.push({ path: req.url!, headers: req.headers, body: JSON.parse(raw) as Received['body'], answered });
      res.writeHead(answered).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  for (const level of ['error', 'warn'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
  [reviewer, deployer, receiver] = await Promise.all([startCodeReviewer(), startDeployer(), startReceiver()]);
  process.env.PLANNER_A2A_AGENT_URLS = JSON.stringify({ 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl });
  api = await startApi(suite.client, suite.queue, { PLANNER_API_TOKEN: `${TOKEN},${OTHER},${MINE}`, PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(async () => {
  delete process.env.PLANNER_A2A_AGENT_URLS;
  await api?.close();
  await Promise.all([reviewer?.close(), deployer?.close(), new Promise((r) => receiver?.server.close(r))]);
  jest.restoreAllMocks();
});

const V1 = { 'a2a-version': '1.0' };
const rpc = (method: string, params: unknown, token: string = TOKEN) => call(api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: V1, token });
type Err = { code: number; message: string };
const errOf = (c: { body: unknown }): Err => (c.body as { error: Err }).error;
const resultOf = <T>(c: { body: unknown }): T => {
  const b = c.body as { result?: T; error?: Err };
  if (!b.result) throw new Error(`expected a result, got ${JSON.stringify(b.error)}`);
  return b.result;
};
type WireTask = { id: string; contextId: string; status: { state: string; timestamp: string; message?: { parts: Array<{ text?: string }> } } };
const message = (text: string, ids: { taskId?: string; contextId?: string } = {}) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skill: 'release' }, ...ids });
const statesAt = (path: string) =>
  receiver.got.filter((r) => r.path === path && r.answered === 200 && r.body.statusUpdate).map((r) => r.body.statusUpdate!.status!.state);

describe('push notifications to upstream callers', () => {
  it('the card offers push notifications', async () => {
    const card = (await call(api.url, 'GET', '/.well-known/agent-card.json', { token: null })).body;
    expect(card).toHaveProperty('capabilities.pushNotifications', true);
  });

  it('a webhook gets the seed plan through the face, each change once with its token; a flaky one too; a deleted one nothing more', async () => {
    // Inline with the first message: from the very first change.
    const first = resultOf<{ task: WireTask }>(
      await rpc('SendMessage', { message: message('Release payments-api'), configuration: { taskPushNotificationConfig: { url: `${receiver.url}/inline/a`, token: 'token-of-config-a' } } }),
    ).task;
    suite.track(first.id, `${first.id}.review`, `${first.id}.deploy`);
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.status.message?.parts[0]?.text).toContain(BASE_BRANCH_QUESTION);

    // Created over HTTP+JSON: a webhook that answers 503 twice to each delivery, with authentication.
    const flaky = await call(api.url, 'POST', `/a2a/rest/tasks/${first.id}/pushNotificationConfigs`, {
      headers: V1,
      body: { url: `${receiver.url}/flaky/b`, authentication: { scheme: 'Bearer', credentials: 'credentials-of-b' } },
    });
    expect(flaky.status).toBe(201);
    const flakyId = (flaky.body as { id: string }).id;
    expect(flakyId).toBeTruthy();
    // Created over JSON-RPC, deleted after the approval request reached it.
    const doomed = resultOf<{ id: string; taskId: string; url: string; token: string }>(await rpc('CreateTaskPushNotificationConfig', { taskId: first.id, url: `${receiver.url}/doomed/c`, token: 'token-of-c' }));
    expect(doomed).toMatchObject({ taskId: first.id, url: `${receiver.url}/doomed/c`, token: 'token-of-c' });

    // Get and list on both bindings.
    const listed = resultOf<{ configs: Array<{ id: string; url: string }> }>(await rpc('ListTaskPushNotificationConfigs', { taskId: first.id }));
    expect(listed.configs.map((c) => c.url)).toEqual([`${receiver.url}/inline/a`, `${receiver.url}/flaky/b`, `${receiver.url}/doomed/c`]);
    const restList = await call(api.url, 'GET', `/a2a/rest/tasks/${first.id}/pushNotificationConfigs`, { headers: V1 });
    expect((restList.body as { configs: Array<{ id: string }> }).configs.map((c) => c.id)).toEqual(listed.configs.map((c) => c.id));
    expect(resultOf<{ url: string }>(await rpc('GetTaskPushNotificationConfig', { taskId: first.id, id: flakyId })).url).toBe(`${receiver.url}/flaky/b`);
    const restGet = await call(api.url, 'GET', `/a2a/rest/tasks/${first.id}/pushNotificationConfigs/${doomed.id}`, { headers: V1 });
    expect(restGet.status).toBe(200);
    expect(restGet.body).toMatchObject({ id: doomed.id, token: 'token-of-c' });
    expect(errOf(await rpc('GetTaskPushNotificationConfig', { taskId: first.id, id: 'no-such-config' })).code).toBe(-32001);

    // The answer on the same task moves it to the deploy's approval.
    const approval = resultOf<{ task: WireTask }>(await rpc('SendMessage', { message: message('main', { taskId: first.id, contextId: first.contextId }) })).task;
    expect(approval.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    await eventually(() => statesAt('/doomed/c').includes('TASK_STATE_AUTH_REQUIRED'), 'the approval request pushed to config c');
    // Deleted on both bindings, twice: a delete is idempotent.
    const restDelete = await call(api.url, 'DELETE', `/a2a/rest/tasks/${first.id}/pushNotificationConfigs/${doomed.id}`, { headers: V1 });
    expect(restDelete.status).toBe(204);
    expect((await rpc('DeleteTaskPushNotificationConfig', { taskId: first.id, id: doomed.id })).body).toHaveProperty('result');
    expect(errOf(await rpc('GetTaskPushNotificationConfig', { taskId: first.id, id: doomed.id })).code).toBe(-32001);
    const doomedBefore = receiver.got.filter((r) => r.path === '/doomed/c').length;

    const url = /https?:\/\/\S+\/approve\/[0-9a-f-]+/.exec(approval.status.message!.parts[0]!.text!)![0];
    expect((await fetch(url, { method: 'POST' })).ok).toBe(true);
    await eventually(() => statesAt('/inline/a').includes('TASK_STATE_COMPLETED') && statesAt('/flaky/b').includes('TASK_STATE_COMPLETED'), 'COMPLETED pushed to a and b');

    // Config a: every change from the first, each once; the caller's token on each.
    const a = statesAt('/inline/a');
    for (const st of ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_COMPLETED']) expect(a.filter((x) => x === st)).toHaveLength(1);
    expect(a.at(-1)).toBe('TASK_STATE_COMPLETED');
    // After the approval: back to WORKING, then COMPLETED.
    const resumed = a.slice(a.indexOf('TASK_STATE_AUTH_REQUIRED') + 1, -1);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.every((x) => x === 'TASK_STATE_WORKING')).toBe(true);
    const toA = receiver.got.filter((r) => r.path === '/inline/a');
    expect(toA.every((r) => r.headers['x-a2a-notification-token'] === 'token-of-config-a' && r.headers.authorization === undefined)).toBe(true);
    expect(toA.every((r) => r.headers['content-type'] === 'application/a2a+json' && Object.keys(r.body).length === 1)).toBe(true);
    expect(toA.every((r) => (r.body.statusUpdate ?? r.body.artifactUpdate)!.taskId === first.id)).toBe(true);
    expect(new Set(toA.map((r) => r.headers['idempotency-key'])).size).toBe(toA.length);
    expect(toA.flatMap((r) => (r.body.artifactUpdate ? [r.body.artifactUpdate.artifact!.name] : []))).toEqual(['review.json', 'deploy-result.json']);

    // Config b: 503, 503, 200 for each change from its creation on, delivered once, same key each attempt.
    const b = statesAt('/flaky/b');
    expect(b.filter((x) => x === 'TASK_STATE_AUTH_REQUIRED')).toHaveLength(1);
    expect(b.filter((x) => x === 'TASK_STATE_COMPLETED')).toHaveLength(1);
    expect(b).not.toContain('TASK_STATE_INPUT_REQUIRED');
    const toB = receiver.got.filter((r) => r.path === '/flaky/b');
    const byKey = new Map<string, number[]>();
    for (const r of toB) byKey.set(String(r.headers['idempotency-key']), [...(byKey.get(String(r.headers['idempotency-key'])) ?? []), r.answered]);
    expect([...byKey.values()].every((answers) => JSON.stringify(answers) === '[503,503,200]')).toBe(true);
    expect(toB.every((r) => r.headers.authorization === 'Bearer credentials-of-b' && r.headers['x-a2a-notification-token'] === undefined)).toBe(true);

    // The tokens and credentials never entered the plan's history (invariant 6): only sealed.
    // Every payload of the history, decoded (they travel base64).
    const history = [...JSON.stringify((await suite.client.workflow.getHandle(first.id).fetchHistory()).events).matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)]
      .map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'))
      .join('\n');
    for (const secret of ['token-of-config-a', 'credentials-of-b', 'token-of-c']) expect(history).not.toContain(secret);
    expect(history).toContain(`${receiver.url}/flaky/b`);

    // Config c: nothing after its deletion (COMPLETED never came).
    expect(receiver.got.filter((r) => r.path === '/doomed/c')).toHaveLength(doomedBefore);
    expect(statesAt('/doomed/c')).not.toContain('TASK_STATE_COMPLETED');
  });

  it('refuses webhook URLs that are not http(s), carry credentials or are link-local, naming the field; a cancelled plan still pushes CANCELED', async () => {
    const started = resultOf<{ task: WireTask }>(await rpc('SendMessage', { message: message('Release payments-api'), configuration: { returnImmediately: true } })).task;
    suite.track(started.id, `${started.id}.review`);
    for (const bad of ['ftp://127.0.0.1/hook', 'http://user:secret@127.0.0.1/hook', 'http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/hook', 'http://2852039166/hook']) {
      const e = errOf(await rpc('CreateTaskPushNotificationConfig', { taskId: started.id, url: bad }));
      expect(e.code).toBe(-32602);
      expect(e.message).toMatch(/^Invalid params: url: /);
    }
    const rest = await call(api.url, 'POST', `/a2a/rest/tasks/${started.id}/pushNotificationConfigs`, { headers: V1, body: { url: 'http://169.254.169.254/' } });
    expect(rest.status).toBe(400);
    const msg = message('Release payments-api');
    const inline = errOf(await rpc('SendMessage', { message: msg, configuration: { taskPushNotificationConfig: { url: 'file:///etc/passwd' } } }));
    expect(inline.code).toBe(-32602);
    expect(inline.message).toContain('configuration.taskPushNotificationConfig.url');
    // (ProtoJSON leaves an empty list out.)
    expect(resultOf<{ configs?: unknown[] }>(await rpc('ListTaskPushNotificationConfigs', { taskId: started.id })).configs ?? []).toEqual([]);
    // A valid one still works, and a cancelled plan delivers its CANCELED before it closes.
    resultOf(await rpc('CreateTaskPushNotificationConfig', { taskId: started.id, url: `${receiver.url}/cancelled/d` }));
    expect(resultOf<WireTask>(await rpc('CancelTask', { id: started.id })).status.state).toBe('TASK_STATE_CANCELED');
    await eventually(() => statesAt('/cancelled/d').includes('TASK_STATE_CANCELED'), 'CANCELED pushed');
    expect(statesAt('/cancelled/d').filter((x) => x === 'TASK_STATE_CANCELED')).toHaveLength(1);
  });
});

describe('per-caller scoping', () => {
  // A caller of this test's own: other files' tasks under the shared TOKEN come and go meanwhile.
  const own = (method: string, params: unknown) => rpc(method, params, MINE);
  it("another caller's task is not found on every method, and ListTasks lists only the caller's own, newest status first", async () => {
    const mine = resultOf<{ task: WireTask }>(await own('SendMessage', { message: message('Release payments-api') })).task;
    expect(mine.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const theirs = resultOf<{ task: WireTask }>(await rpc('SendMessage', { message: message('Release payments-api'), configuration: { returnImmediately: true } }, OTHER)).task;
    suite.track(mine.id, `${mine.id}.review`, theirs.id, `${theirs.id}.review`);

    const unknown = errOf(await rpc('GetTask', { id: `${mine.id}x` }, OTHER));
    expect(unknown.code).toBe(-32001);
    const asOther = async (method: string, params: unknown) => errOf(await rpc(method, params, OTHER));
    for (const [method, params] of [
      ['GetTask', { id: mine.id }],
      ['CancelTask', { id: mine.id }],
      ['SubscribeToTask', { id: mine.id }],
      ['SendMessage', { message: message('main', { taskId: mine.id, contextId: mine.contextId }) }],
      ['ListTaskPushNotificationConfigs', { taskId: mine.id }],
      ['CreateTaskPushNotificationConfig', { taskId: mine.id, url: `${receiver.url}/other` }],
    ] as const) {
      const e = await asOther(method, params);
      expect([method, e.code, e.message.replace(mine.id, '<id>')]).toEqual([method, -32001, `Task not found: <id>`]);
    }
    const rest = await call(api.url, 'GET', `/a2a/rest/tasks/${mine.id}`, { headers: V1, token: OTHER });
    expect(rest.status).toBe(404);
    // Nothing reached my task: it still waits on the same question, with one upstream message.
    const still = resultOf<WireTask & { history: unknown[] }>(await own('GetTask', { id: mine.id }));
    expect(still.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    type Listed = { tasks: WireTask[]; totalSize: number; nextPageToken: string };
    const theirList = resultOf<Listed>(await rpc('ListTasks', { pageSize: 100 }, OTHER));
    expect(theirList.tasks.map((t) => t.id)).toEqual([theirs.id]);
    expect(theirList.totalSize).toBe(1);
    // Two more of mine, so that the order has something to show (visibility may take a moment).
    for (let i = 0; i < 2; i++) {
      const more = resultOf<{ task: WireTask }>(await own('SendMessage', { message: message('Release payments-api'), configuration: { returnImmediately: true } })).task;
      suite.track(more.id, `${more.id}.review`);
    }
    // Listed again and again while the two move to their question: every response must be in the
    // order of the times it shows.
    const disordered: number[][] = [];
    const myList = await eventually(async () => {
      const list = resultOf<Listed>(await own('ListTasks', { pageSize: 100 }));
      const shown = list.tasks.map((t) => Date.parse(t.status.timestamp));
      if ([...shown].sort((x, y) => y - x).join() !== shown.join()) disordered.push(shown);
      return list.tasks.length >= 3 && list.tasks.every((t) => t.status.state === 'TASK_STATE_INPUT_REQUIRED') ? list : undefined;
    }, 'three of my tasks listed at their question', 30_000, 25);
    expect(disordered).toEqual([]);
    expect(myList.tasks.map((t) => t.id)).toContain(mine.id);
    expect(myList.tasks.map((t) => t.id)).not.toContain(theirs.id);
    // Newest status first (§3.1.4), even while the tasks still move and visibility lags them (a
    // response once placed a task by its older record and showed its newer status: CI of 1ea070c).
    const times = myList.tasks.map((t) => Date.parse(t.status.timestamp));
    expect(times.length).toBeGreaterThan(2);
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    // Across pages too, once the tasks have settled and visibility has caught up with them.
    const ids = myList.tasks.map((t) => t.id);
    await eventually(async () => {
      const shown = await Promise.all(ids.map(async (id) => resultOf<WireTask>(await own('GetTask', { id })).status));
      if (shown.some((st) => st.state !== 'TASK_STATE_INPUT_REQUIRED')) return false;
      const recorded = await Promise.all(ids.map(async (id) => {
        for await (const info of suite.client.workflow.list({ query: `WorkflowId = '${id}'` })) return info.typedSearchAttributes.get(PlannerWaitingSince)?.getTime();
        return undefined;
      }));
      return recorded.every((at, i) => at === Date.parse(shown[i]!.timestamp));
    }, 'my tasks settled at their question, and visibility caught up', 30_000, 300);
    const settled = resultOf<Listed>(await own('ListTasks', { pageSize: 100 }));
    expect(settled.tasks.map((t) => t.id).sort()).toEqual([...ids].sort());
    const pages: string[] = [];
    let token = '';
    for (let i = 0; i < 20; i++) {
      const page = resultOf<Listed>(await own('ListTasks', { pageSize: 1, ...(token ? { pageToken: token } : {}) }));
      pages.push(...page.tasks.map((t) => t.id));
      token = page.nextPageToken;
      if (!token) break;
    }
    expect(pages).toEqual(settled.tasks.map((t) => t.id));
    expect(errOf(await own('ListTasks', { pageToken: 'bm90LWEtdG9rZW4' })).message).toContain('pageToken');
    await Promise.all([suite.client.workflow.getHandle(mine.id).cancel(), suite.client.workflow.getHandle(theirs.id).cancel()]);
  });

  it('lists a task whose state no worker can give as visibility knows it, saying so, and still lists the others', async () => {
    // A second face on a task queue no worker polls: its plan's query goes unanswered.
    const idle = await startApi(suite.client, `${suite.queue}-nobody`, { PLANNER_API_TOKEN: LONELY });
    try {
      const rpcIdle = (method: string, params: unknown) => call(idle.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: V1, token: LONELY });
      const stuck = resultOf<{ task: WireTask }>(await rpcIdle('SendMessage', { message: message('Release payments-api'), configuration: { returnImmediately: true } })).task;
      const listed = await eventually(async () => {
        const list = resultOf<{ tasks: Array<WireTask & { metadata?: { planner?: { stateUnreadable?: string } } }> }>(await rpcIdle('ListTasks', {}));
        return list.tasks.length > 0 ? list.tasks : undefined;
      }, 'the stuck task listed', 40_000, 500);
      expect(listed.map((t) => t.id)).toEqual([stuck.id]);
      expect(listed[0]).toMatchObject({ contextId: stuck.contextId, status: { state: 'TASK_STATE_SUBMITTED' } });
      expect(listed[0]!.metadata?.planner?.stateUnreadable).toMatch(/could not be read/);
      await suite.client.workflow.getHandle(stuck.id).terminate('no worker on its queue, by design of this test');
    } finally {
      await idle.close();
    }
  }, 60_000);
});

itReplaysItsHistories(suite);
