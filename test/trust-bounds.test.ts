// Bounded resources per caller, and every bad input a 4xx (issue 19, items 5 and 6): open event
// streams and subscriptions per caller across /v1 and the A2A face, push configs per task (at the
// face and in the plan's validator), schedules per caller with a minimum interval and cron fields
// checked, JSON nesting depth on every body, answer size, garbage page tokens, and the answer
// request's time limit. Each over-bound request is a 4xx (or the A2A error) that names the bound
// and its value, and comes back at once. Real dev server, real planner server and agents on loopback.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { RunningServer } from '../server/main';
import { createPushConfigUpdate } from '../workflows/plan/messages';
import { startCodeReviewer, type AgentHandle } from './agents';
import { call, OPERATOR_TOKEN, startApi } from './support/api';
import { DIFF, waitForStatus } from './support/delegated';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

// Tokens of this file's own: caps are per caller, and other suites share the usual test token.
const STREAMER = 'trust-bounds-streamer-token-01';
const NEIGHBOUR = 'trust-bounds-neighbour-token-02';
const PUSHER = 'trust-bounds-pusher-token-0003';
const SCHEDULER = 'trust-bounds-scheduler-token-04';
const SCHEDULER_2 = 'trust-bounds-scheduler-token-05';
const PLAIN = 'trust-bounds-plain-token-000006';
const WEBHOOK_SECRET = 'webhook-secret-of-trust-bounds-0123';
const BOUNDS = {
  PLANNER_STREAMS_PER_CALLER: '3',
  PLANNER_PUSH_CONFIGS_PER_TASK: '2',
  PLANNER_SCHEDULES_PER_CALLER: '2',
  PLANNER_SCHEDULE_MIN_INTERVAL: '1m',
  PLANNER_JSON_MAX_DEPTH: '64',
  PLANNER_ANSWER_MAX_BYTES: '4096',
  PLANNER_ANSWER_WAIT: '2s',
};

const suite = plannerSuite('trust-bounds', () => ({ PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET }));
let reviewer: AgentHandle;
let api: RunningServer;
let hooks: { server: Server; url: string };
const schedules: Array<{ id: string; token: string }> = [];

beforeAll(async () => {
  for (const level of ['error', 'warn'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
  reviewer = await startCodeReviewer();
  hooks = await new Promise((resolve) => {
    const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
  process.env.PLANNER_A2A_AGENT_URLS = JSON.stringify({ 'code-reviewer': reviewer.baseUrl, deployer: 'http://127.0.0.1:9' });
  api = await startApi(suite.client, suite.queue, {
    PLANNER_API_TOKEN: [STREAMER, NEIGHBOUR, PUSHER, SCHEDULER, SCHEDULER_2, PLAIN].join(','),
    PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...BOUNDS,
  });
});
afterAll(async () => {
  delete process.env.PLANNER_A2A_AGENT_URLS;
  for (const s of schedules) await call(api.url, 'DELETE', `/v1/schedules/${s.id}`, { token: s.token }).catch(() => undefined);
  // Every plan and task this file started is ended: none should hold the suite's worker.
  for (const id of suite.started) await suite.client.workflow.getHandle(id).terminate('trust-bounds: done').catch(() => undefined);
  await api?.close();
  await Promise.all([reviewer?.close(), new Promise((r) => hooks?.server.close(r))]);
  jest.restoreAllMocks();
});

const V1 = { 'a2a-version': '1.0' };
const rpc = (method: string, params: unknown, token: string) => call(api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: V1, token });
type Err = { code: number; message: string };
const errOf = (c: { body: unknown }): Err => (c.body as { error: Err }).error;
const apiError = (c: { body: unknown }) => (c.body as { error: { code: string; message: string; details?: Array<{ path: string; message: string }> } }).error;
const message = (text: string, ids: { taskId?: string; contextId?: string } = {}) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skill: 'release' }, ...ids });

/** A plan started over the face by `token`, waiting on its reviewer's question (so it stays open). */
async function waitingPlan(token: string): Promise<{ id: string; contextId: string }> {
  const r = await rpc('SendMessage', { message: message('Release payments-api'), configuration: { returnImmediately: true } }, token);
  const task = (r.body as { result?: { task: { id: string; contextId: string } } }).result?.task;
  if (!task) throw new Error(`no task: ${r.text}`);
  suite.track(task.id, `${task.id}.review`);
  await eventually(async () => {
    const got = await rpc('GetTask', { id: task.id }, token);
    return (got.body as { result?: { status: { state: string } } }).result?.status.state === 'TASK_STATE_INPUT_REQUIRED';
  }, 'the plan waiting on its question');
  return task;
}

/** A request whose answer may be a stream: its status and headers, the body read only when it is not a stream. */
async function openStream(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; text: string; close(): void }> {
  const abort = new AbortController();
  const res = await fetch(`${api.url}${path}`, {
    method,
    signal: abort.signal,
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...V1, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  // A stream's body is left unread and open until close().
  const streaming = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const text = streaming ? '' : await res.text();
  return { status: res.status, text, close: () => abort.abort() };
}

const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const nestedObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** The time one call takes, with its result. */
async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = Date.now();
  const value = await f();
  return { ms: Date.now() - t0, value };
}

it('open event streams and subscriptions are capped per caller across /v1 and the face (PLANNER_STREAMS_PER_CALLER): 429 naming the cap; others unaffected; a closed one frees its slot', async () => {
  const mine = await waitingPlan(STREAMER);
  const theirs = await waitingPlan(NEIGHBOUR);
  const open = [
    await openStream('GET', `/v1/plans/${mine.id}/events`, STREAMER),
    await openStream('GET', `/v1/plans/${mine.id}/events`, STREAMER),
    await openStream('POST', '/a2a/jsonrpc', STREAMER, { jsonrpc: '2.0', id: 7, method: 'SubscribeToTask', params: { id: mine.id } }),
  ];
  try {
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);
    // The fourth, on any surface, is refused at once and names the cap.
    const events = await timed(() => call(api.url, 'GET', `/v1/plans/${mine.id}/events`, { token: STREAMER }));
    expect(events.value.status).toBe(429);
    expect(apiError(events.value)).toMatchObject({ code: 'limit_exceeded', message: expect.stringContaining('PLANNER_STREAMS_PER_CALLER') });
    expect(apiError(events.value).message).toContain('3');
    expect(events.value.headers.get('retry-after')).toBeTruthy();
    expect(events.ms).toBeLessThan(5000);
    const subscribe = await call(api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 8, method: 'SubscribeToTask', params: { id: mine.id } }, headers: V1, token: STREAMER });
    expect(subscribe.status).toBe(429);
    expect(errOf(subscribe)).toMatchObject({ code: -32000, message: expect.stringContaining('PLANNER_STREAMS_PER_CALLER (3)') });
    expect((subscribe.body as { id: number }).id).toBe(8);
    const streamed = await call(api.url, 'POST', '/a2a/rest/message:stream', { body: { message: message('more', { taskId: mine.id }) }, headers: V1, token: STREAMER });
    expect(streamed.status).toBe(429);
    expect(streamed.body).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('PLANNER_STREAMS_PER_CALLER') } });
    const restSubscribe = await call(api.url, 'GET', `/a2a/rest/tasks/${mine.id}:subscribe`, { headers: V1, token: STREAMER });
    expect(restSubscribe.status).toBe(429);
    // Other calls of the same caller still work, and another caller has its own slots.
    expect((await call(api.url, 'GET', `/v1/plans/${mine.id}`, { token: STREAMER })).status).toBe(200);
    const neighbour = await openStream('GET', `/v1/plans/${theirs.id}/events`, NEIGHBOUR);
    expect(neighbour.status).toBe(200);
    neighbour.close();
    // A stream that ends gives its slot back.
    open.pop()!.close();
    const again = await eventually(async () => {
      const s = await openStream('GET', `/v1/plans/${mine.id}/events`, STREAMER);
      if (s.status === 200) return s;
      return undefined;
    }, 'a slot freed by the closed subscription');
    open.push(again);
  } finally {
    for (const s of open) s.close();
  }
});

it('push configs per task are capped at the face (-32602 / 400 naming PLANNER_PUSH_CONFIGS_PER_TASK) and again by the plan’s validator (a typed refusal)', async () => {
  const task = await waitingPlan(PUSHER);
  for (const n of [1, 2]) {
    const r = await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, url: `${hooks.url}/hook/${n}` }, PUSHER);
    expect((r.body as { result?: unknown }).result).toBeDefined();
  }
  const third = await timed(() => rpc('CreateTaskPushNotificationConfig', { taskId: task.id, url: `${hooks.url}/hook/3` }, PUSHER));
  expect(errOf(third.value).code).toBe(-32602);
  expect(errOf(third.value).message).toMatch(/PLANNER_PUSH_CONFIGS_PER_TASK.*2|2.*PLANNER_PUSH_CONFIGS_PER_TASK/);
  expect(third.ms).toBeLessThan(5000);
  const rest = await call(api.url, 'POST', `/a2a/rest/tasks/${task.id}/pushNotificationConfigs`, { headers: V1, token: PUSHER, body: { url: `${hooks.url}/hook/4` } });
  expect(rest.status).toBe(400);
  expect(rest.text).toContain('PLANNER_PUSH_CONFIGS_PER_TASK');
  // Inline with a message on the task: the same cap.
  const inline = await rpc('SendMessage', { message: message('main', { taskId: task.id }), configuration: { taskPushNotificationConfig: { url: `${hooks.url}/hook/5` } } }, PUSHER);
  expect(errOf(inline).code).toBe(-32602);
  expect(errOf(inline).message).toContain('PLANNER_PUSH_CONFIGS_PER_TASK');
  // Past the face (a second replica racing, or a client of Temporal): the plan refuses too, and leaves no event.
  const handle = suite.client.workflow.getHandle(task.id);
  const refused = await handle.executeUpdate(createPushConfigUpdate, { args: [{ url: `${hooks.url}/hook/6` }] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (refused as WorkflowUpdateFailedError).cause as { type?: string; message: string };
  expect(cause.type).toBe('TooManyPushConfigs');
  expect(cause.message).toContain('2');
  const listed = await rpc('ListTaskPushNotificationConfigs', { taskId: task.id }, PUSHER);
  expect((listed.body as { result: { configs: unknown[] } }).result.configs).toHaveLength(2);
  // The refused ones left no update in the history, and the message with a webhook too many was not delivered.
  const events = (await handle.fetchHistory()).events ?? [];
  expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'createPushConfig')).toHaveLength(2);
  expect(events.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'upstreamMessage')).toBe(false);
});

it('schedules per caller are capped (PLANNER_SCHEDULES_PER_CALLER): 429 naming the cap; another caller has its own', async () => {
  const make = (id: string, token: string) => {
    schedules.push({ id, token });
    return call(api.url, 'POST', '/v1/schedules', { token, body: { scheduleId: id, every: '1h', planFile: 'release.yaml' } });
  };
  const run = randomUUID().slice(0, 8);
  expect((await make(`tb-${run}-a`, SCHEDULER)).status).toBe(201);
  expect((await make(`tb-${run}-b`, SCHEDULER)).status).toBe(201);
  const third = await make(`tb-${run}-c`, SCHEDULER);
  expect(third.status).toBe(429);
  expect(apiError(third)).toMatchObject({ code: 'limit_exceeded', message: expect.stringContaining('PLANNER_SCHEDULES_PER_CALLER (2)') });
  expect((await call(api.url, 'GET', `/v1/schedules/tb-${run}-c`, { token: SCHEDULER })).status).toBe(404);
  expect((await make(`tb-${run}-d`, SCHEDULER_2)).status).toBe(201);
  // Deleting one frees its place.
  expect((await call(api.url, 'DELETE', `/v1/schedules/tb-${run}-a`, { token: SCHEDULER })).status).toBe(204);
  expect((await make(`tb-${run}-e`, SCHEDULER)).status).toBe(201);
});

it('a schedule interval under the minimum (PLANNER_SCHEDULE_MIN_INTERVAL) is a 400 naming body.every and the minimum, at once', async () => {
  for (const every of ['500ms', '0.5s', 999, '30s', 59_999]) {
    const r = await timed(() => call(api.url, 'POST', '/v1/schedules', { token: PLAIN, body: { scheduleId: `tb-short-${randomUUID().slice(0, 8)}`, every, planFile: 'release.yaml' } }));
    expect({ every, status: r.value.status }).toEqual({ every, status: 400 });
    expect(apiError(r.value).message).toContain('body.every');
    expect(apiError(r.value).message).toContain('PLANNER_SCHEDULE_MIN_INTERVAL (1m)');
    expect(r.ms).toBeLessThan(5000);
  }
});

it('a cron expression with a field out of range or malformed is a 400 naming body.cron and the field, before Temporal sees it', async () => {
  const cases: Array<[string, RegExp]> = [
    ['61 * * * *', /minute.*61.*0-59/],
    ['0 24 * * *', /hour.*24.*0-23/],
    ['0 3 32 * *', /day of month.*32.*1-31/],
    ['0 3 * 13 *', /month.*13.*1-12/],
    ['0 3 * * 8', /day of week.*8.*0-7/],
    ['0 3 * * 1-9', /day of week.*9/],
    ['*/0 * * * *', /minute.*step/],
    ['0 3 * * mon-fryday', /day of week.*fryday/],
    ['x 3 * * *', /minute.*"x"/],
    ['0 3 ? * *', /day of month.*"\?"/],
    ['60 0 3 * * * 2030', /second.*60.*0-59/],
  ];
  for (const [cron, why] of cases) {
    const r = await timed(() => call(api.url, 'POST', '/v1/schedules', { token: PLAIN, body: { scheduleId: `tb-cron-${randomUUID().slice(0, 8)}`, cron, planFile: 'release.yaml' } }));
    expect({ cron, status: r.value.status }).toEqual({ cron, status: 400 });
    expect(apiError(r.value).message).toContain('body.cron');
    expect({ cron, message: apiError(r.value).message }).toEqual({ cron, message: expect.stringMatching(why) });
    expect(r.ms).toBeLessThan(5000);
  }
  // Good ones pass the check (and are deleted again).
  for (const cron of ['0 3 * * 1-5', '*/15 0-6 1,15 jan-mar sun', '30 0 3 * * mon 2030']) {
    const id = `tb-cron-ok-${randomUUID().slice(0, 8)}`;
    schedules.push({ id, token: PLAIN });
    const r = await call(api.url, 'POST', '/v1/schedules', { token: PLAIN, body: { scheduleId: id, cron, planFile: 'release.yaml' } });
    expect({ cron, status: r.status, text: r.status === 201 ? '' : r.text }).toEqual({ cron, status: 201, text: '' });
    await call(api.url, 'DELETE', `/v1/schedules/${id}`, { token: PLAIN });
  }
});

it('JSON nested deeper than PLANNER_JSON_MAX_DEPTH is a 400 naming the depth on the API and both face bindings, at once, whatever the depth', async () => {
  for (const raw of [nested(65), nested(5000), nestedObject(65), nestedObject(100_000)]) {
    const r = await timed(() => call(api.url, 'POST', '/v1/plans', { token: PLAIN, raw, headers: { 'content-type': 'application/json' } }));
    expect(r.value.status).toBe(400);
    expect(apiError(r.value)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('PLANNER_JSON_MAX_DEPTH (64)') });
    expect(apiError(r.value).details).toEqual([expect.objectContaining({ path: 'body' })]);
    expect(r.ms).toBeLessThan(5000);

    const jr = await call(api.url, 'POST', '/a2a/jsonrpc', { token: PLAIN, headers: { ...V1, 'content-type': 'application/json' }, raw: `{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"x","deep":${raw}}}` });
    expect(jr.status).toBe(400);
    expect(errOf(jr)).toMatchObject({ code: -32600, message: expect.stringContaining('PLANNER_JSON_MAX_DEPTH (64)') });
    const rest = await call(api.url, 'POST', '/a2a/rest/message:send', { token: PLAIN, headers: { ...V1, 'content-type': 'application/json' }, raw: `{"message":${raw}}` });
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('PLANNER_JSON_MAX_DEPTH') } });
  }
  // 64 levels pass; brackets inside strings are text, not nesting.
  const ok = await call(api.url, 'POST', '/v1/tasks/no-such-task/answer', { token: PLAIN, raw: `{"data":${nested(63)}}`, headers: { 'content-type': 'application/json' } });
  expect(ok.status).toBe(404);
  const brackets = await call(api.url, 'POST', '/v1/tasks/no-such-task/answer', { token: PLAIN, body: { text: `[{"\\${'['.repeat(3000)}` } });
  expect(brackets.status).toBe(404);
});

it('an answer over PLANNER_ANSWER_MAX_BYTES is a 400 naming the field and the bound, on the API and in a face message', async () => {
  const big = 'x'.repeat(5000);
  for (const [body, field] of [
    [{ text: big }, 'body.text'],
    [{ data: { notes: big } }, 'body.data'],
  ] as const) {
    for (const path of ['/v1/tasks/no-such-task/answer', '/v1/plans/no-such-plan/steps/review/answer']) {
      const r = await call(api.url, 'POST', path, { token: PLAIN, body });
      expect({ path, field, status: r.status }).toEqual({ path, field, status: 400 });
      expect(apiError(r).message).toContain(field);
      expect(apiError(r).message).toContain('PLANNER_ANSWER_MAX_BYTES (4096)');
    }
  }
  const face = await rpc('SendMessage', { message: { ...message(big), taskId: 'a2a-whatever' } }, PLAIN);
  expect(errOf(face).code).toBe(-32602);
  expect(errOf(face).message).toMatch(/message\.parts.*PLANNER_ANSWER_MAX_BYTES \(4096\)/);
});

it('a garbage page token is a 400 naming pageToken at once: /v1/plans, /v1/inbox and ListTasks on the face', async () => {
  const garbage = ['garbage', 'AAAA', Buffer.from('{"x":1}').toString('base64url'), Buffer.from(randomUUID()).toString('base64url'), 'Zm9v'.repeat(200)];
  for (const token of garbage) {
    for (const route of ['/v1/plans', '/v1/inbox']) {
      const r = await timed(() => call(api.url, 'GET', `${route}?pageToken=${encodeURIComponent(token)}`, { token: PLAIN }));
      expect({ route, token, status: r.value.status }).toEqual({ route, token, status: 400 });
      expect(apiError(r.value).message).toContain('query.pageToken');
      expect({ route, token, fast: r.ms < 5000 }).toEqual({ route, token, fast: true }); // generous: the defect took ~19 s
    }
    const list = await timed(() => rpc('ListTasks', { pageToken: token }, PLAIN));
    expect(errOf(list.value)).toMatchObject({ code: -32602, message: expect.stringContaining('pageToken') });
    expect(list.ms).toBeLessThan(5000);
  }
  // A token the API gave still pages.
  const first = await call(api.url, 'GET', '/v1/plans?pageSize=1', { token: PLAIN });
  const next = (first.body as { nextPageToken?: string }).nextPageToken;
  if (next) expect((await call(api.url, 'GET', `/v1/plans?pageSize=1&pageToken=${next}`, { token: PLAIN })).status).toBe(200);
});

it('the answer request waits at most PLANNER_ANSWER_WAIT for the agent: then 202, the answer accepted and pending, naming what is pending', async () => {
  const agent = await startCodeReviewer();
  const handle = await suite.start({ agent: { name: 'code-reviewer', url: agent.baseUrl }, message: { text: DIFF } });
  await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');
  await agent.close(); // the answer cannot reach the agent now: its send retries
  // The task was started by the client, not by a caller: an operator answers it.
  const r = await timed(() =>
    fetch(`${api.url}/v1/tasks/${handle.workflowId}/answer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'main', turn: 1 }),
      signal: AbortSignal.timeout(20_000),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> })),
  );
  expect(r.value.status).toBe(202);
  expect(r.value.body).toMatchObject({ workflowId: handle.workflowId, turn: 1, accepted: true, pending: 'agent-reply', message: expect.stringContaining('PLANNER_ANSWER_WAIT (2s)') });
  expect(r.ms).toBeLessThan(15_000); // generous: without the bound it never answers (the 20 s abort)
  // The answer is in: a second one is refused (409), not delivered twice.
  const again = await call(api.url, 'POST', `/v1/tasks/${handle.workflowId}/answer`, { token: OPERATOR_TOKEN, body: { text: 'main', turn: 1 } });
  expect(again.status).toBe(409);
});

itReplaysItsHistories(suite);
