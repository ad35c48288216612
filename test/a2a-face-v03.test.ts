// The face for A2A v0.3 callers (server/face/v0_3/): the Python a2a-sdk 0.3.26 client runs the
// seed plan through it on both bindings, with no A2A-Version header: the question answered on
// the same task and context, the approval relayed as auth-required, completed. Then
// @a2a-js/sdk 0.3.14's client (the dev alias a2a-sdk-v03) and raw requests for the rest: the card
// without the header offers both versions, a request without it or with 0.3 is answered in
// v0.3, errors come in v0.3's shape, and a 1.0 header still gets v1.0.
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, TaskNotFoundError, type Client as V03Client } from 'a2a-sdk-v03/client';
import type { Task as V03Task } from 'a2a-sdk-v03';
import { startCodeReviewer, startDeployer, BASE_BRANCH_QUESTION } from './agents';
import { call, startApi, TOKEN } from './support/api';
import { authed, faceWithAgents } from './support/face-client';
import { runPythonV03Client, type V03Step } from './support/python-v03-client';
import { itReplaysItsHistories, plannerSuite } from './support/suite';

const suite = plannerSuite('a2a-face-v03');
const face = faceWithAgents(suite, () => Promise.all([startCodeReviewer(), startDeployer()]));

const stepOf = (steps: V03Step[], name: string): V03Step => {
  const s = steps.find((x) => x.step === name);
  if (!s) throw new Error(`the v0.3 client printed no ${name} step: ${JSON.stringify(steps)}`);
  return s;
};

describe.each([
  ['JSONRPC', 'streaming'],
  ['JSONRPC', 'blocking'],
  ['HTTP+JSON', 'streaming'],
  ['HTTP+JSON', 'blocking'],
] as const)('the Python a2a-sdk 0.3.26 client over %s (%s)', (binding, mode) => {
  it('runs the seed plan: question answered on the same task, approval relayed as auth-required, completed', async () => {
    const steps = await runPythonV03Client(face.api.url, TOKEN, binding, mode);
    const card = stepOf(steps, 'card');
    expect(card).toMatchObject({ protocolVersion: '0.3', preferredTransport: 'JSONRPC', url: `${face.api.url}/a2a/jsonrpc`, streaming: true });
    expect(card.additional).toEqual([{ url: `${face.api.url}/a2a/rest`, transport: 'HTTP+JSON' }]);

    const asked = stepOf(steps, 'asked');
    suite.track(String(asked.id));
    expect(asked).toMatchObject({ kind: 'task', state: 'input-required' });
    expect(asked.id).toMatch(/^a2a-/);
    expect(asked.text).toContain(BASE_BRANCH_QUESTION);
    expect(asked.text).toContain('agent code-reviewer');

    const answered = stepOf(steps, 'answered');
    expect(answered).toMatchObject({ id: asked.id, contextId: asked.contextId, state: 'auth-required' });
    expect(answered.text).toContain('agent deployer');
    // The answer reached the reviewer on its task.
    const toReviewer = face.reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${String(asked.id)}.`));
    expect(toReviewer.map((m) => m.text.split('\n')[0])).toEqual(['Please review this diff of payments-api:', 'main']);

    const done = stepOf(steps, 'completed');
    expect(done).toMatchObject({ id: asked.id, contextId: asked.contextId, state: 'completed', historyKinds: ['message'] });
    // Streaming: the resubscribe stream opened at auth-required, then carried working and
    // completed. Blocking: tasks/get polled after the approval ended at completed.
    const states = done.streamStates as string[];
    expect(states.at(-1)).toBe('completed');
    if (mode === 'streaming') {
      expect(states[0]).toBe('auth-required');
      expect(states).toContain('working');
    }
    expect(done.artifacts).toEqual(expect.arrayContaining([expect.stringMatching(/review|deploy/)]));
  });
});

/** @a2a-js/sdk 0.3.14's client of the face, preferring one binding; it sends no A2A-Version. */
async function v03Client(binding: 'JSONRPC' | 'HTTP+JSON'): Promise<V03Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: authed }), new RestTransportFactory({ fetchImpl: authed })],
    preferredTransports: [binding],
  });
  return new ClientFactory(options).createFromUrl(face.api.url);
}

const v03Message = (text: string, extra: { taskId?: string; contextId?: string } = {}) => ({
  kind: 'message' as const,
  messageId: randomUUID(),
  role: 'user' as const,
  parts: [{ kind: 'text' as const, text }],
  metadata: { skill: 'release' },
  ...extra,
});

/**
 * A GET's status through node:http: fetch() adds `Cache-Control: no-cache` to a request with
 * If-None-Match (the fetch spec), and express's freshness check, which the SDK's card router
 * uses, then never answers 304.
 */
function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the card', () => {
  const CARD = '/.well-known/agent-card.json';

  it('without A2A-Version is the v0.3 card that also lists the v1.0 interfaces; with 1.0 the v1.0 card', async () => {
    const v03 = await call(face.api.url, 'GET', CARD, { token: null });
    expect(v03.status).toBe(200);
    expect(v03.headers.get('vary')).toMatch(/A2A-Version/i);
    const card = v03.body as Record<string, unknown>;
    expect(card).toMatchObject({
      protocolVersion: '0.3',
      url: `${face.api.url}/a2a/jsonrpc`,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: `${face.api.url}/a2a/rest`, transport: 'HTTP+JSON' }],
      securitySchemes: { bearer: { type: 'http', scheme: 'Bearer' } },
      security: [{ bearer: [] }],
      capabilities: { streaming: true, pushNotifications: false },
    });
    const interfaces = [
      { url: `${face.api.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${face.api.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${face.api.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${face.api.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ];
    // (The SDK's copy carries the proto default `tenant: ""` too.)
    expect(card.supportedInterfaces).toEqual(interfaces.map((i) => expect.objectContaining(i)));
    // The same with an explicit 0.3; a cache revalidates it by its ETag.
    const again = await call(face.api.url, 'GET', CARD, { token: null, headers: { 'a2a-version': '0.3' } });
    expect(again.body).toEqual(card);
    const etag = v03.headers.get('etag')!;
    expect(await statusOf(`${face.api.url}${CARD}`, { 'if-none-match': etag })).toBe(304);
    // HEAD tells the same card as GET.
    expect((await fetch(`${face.api.url}${CARD}`, { method: 'HEAD' })).headers.get('etag')).toBe(etag);

    const v1 = await call(face.api.url, 'GET', CARD, { token: null, headers: { 'a2a-version': '1.0' } });
    expect(v1.headers.get('vary')).toMatch(/A2A-Version/i);
    expect(v1.headers.get('etag')).not.toBe(etag);
    const v1Card = v1.body as Record<string, unknown>;
    expect(v1Card).not.toHaveProperty('url');
    expect(v1Card.supportedInterfaces).toEqual(interfaces);
    expect(v1Card).toHaveProperty('securitySchemes.bearer.httpAuthSecurityScheme.scheme', 'Bearer');
  });
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('@a2a-js/sdk 0.3.14 over %s, no A2A-Version', (binding) => {
  it('is answered in v0.3: a kind-tagged task, lower-case states, get and cancel', async () => {
    const client = await v03Client(binding);
    const sent = (await client.sendMessage({ message: v03Message('Release payments-api'), configuration: { blocking: false } })) as V03Task;
    suite.track(sent.id);
    expect(sent).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    expect(sent.history?.[0]).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'Release payments-api' }] });
    // The reviewer's question, on tasks/get as v0.3 states it.
    const asked = await eventuallyState(client, sent.id, 'input-required');
    expect(asked.status.message).toMatchObject({ kind: 'message', role: 'agent' });
    const canceled = await client.cancelTask({ id: sent.id });
    expect(canceled).toMatchObject({ kind: 'task', id: sent.id, status: { state: 'canceled' } });
    await expect(client.getTask({ id: 'a2a-nope' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});

/** tasks/get until the task is in `state` (at most 20 s). */
async function eventuallyState(client: V03Client, id: string, state: string): Promise<V03Task> {
  const until = Date.now() + 20_000;
  for (;;) {
    const t = await client.getTask({ id });
    if (t.status.state === state) return t;
    if (Date.now() > until) throw new Error(`task ${id} is ${t.status.state}, not ${state}, after 20 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('v0.3 on the wire', () => {
  const rpc = (method: string, params: unknown, headers: Record<string, string> = {}, token?: string | null) =>
    call(face.api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 9, method, params }, headers, token });
  const errOf = (c: { body: unknown }) => (c.body as { error: { code: number; message: string; data?: unknown } }).error;

  it('A2A-Version 0.3 (or 0.3.0) is v0.3 as no header is; 1.0 is v1.0; 99.0 is refused', async () => {
    const started = await rpc('message/send', { message: v03Message('Release payments-api'), configuration: { blocking: false } }, { 'a2a-version': '0.3' });
    const task = (started.body as { result: V03Task }).result;
    suite.track(task.id);
    expect(task).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    const got = await rpc('tasks/get', { id: task.id, historyLength: 1 }, { 'a2a-version': '0.3.0' });
    expect((got.body as { result: V03Task }).result).toMatchObject({ kind: 'task', id: task.id, history: [{ kind: 'message' }] });
    const v1 = await rpc('GetTask', { id: task.id }, { 'a2a-version': '1.0' });
    expect((v1.body as { result: { status: { state: string } } }).result.status.state).toMatch(/^TASK_STATE_/);
    expect((v1.body as { result: object }).result).not.toHaveProperty('kind');
    // A v1.0 method without the header is a v0.3 request for a method v0.3 does not have.
    expect(errOf(await rpc('GetTask', { id: task.id })).code).toBe(-32601);
    expect(errOf(await rpc('tasks/get', { id: task.id }, { 'a2a-version': '99.0' })).code).toBe(-32009);
    await rpc('tasks/cancel', { id: task.id });
  });

  it('message/send blocks unless configuration.blocking is false, as the v0.3 SDKs serve it, also when configuration says nothing of it', async () => {
    const sent = await rpc('message/send', { message: v03Message('Release payments-api'), configuration: { acceptedOutputModes: ['text/plain'] } });
    const task = (sent.body as { result: V03Task }).result;
    suite.track(task.id);
    expect(task.status.state).toBe('input-required');
    await rpc('tasks/cancel', { id: task.id });
  });

  it('errors in v0.3 shape on JSON-RPC: codes, no ErrorInfo, the field named', async () => {
    const notFound = errOf(await rpc('tasks/get', { id: 'a2a-nope' }));
    expect(notFound.code).toBe(-32001);
    expect(notFound).not.toHaveProperty('data');
    const badPart = errOf(await rpc('message/send', { message: { ...v03Message('x'), parts: [{ kind: 'text', text: 7 }] } }));
    expect(badPart.code).toBe(-32602);
    expect(badPart.message).toContain('params.message.parts[0].text');
    const v1Part = errOf(await rpc('message/send', { message: { ...v03Message('x'), parts: [{ text: 'a v1.0 part' }] } }));
    expect(v1Part.code).toBe(-32602);
    expect(v1Part.message).toContain('params.message.parts[0]');
    expect(errOf(await rpc('tasks/cancel', {})).message).toContain('params.id');
    // A method named like an Object.prototype member is an unknown method, not a 500 (fuzz-http found it).
    for (const method of ['valueOf', 'constructor', '__proto__', 'toString']) expect(errOf(await rpc(method, {})).code).toBe(-32601);
    // The card has no extended card: v0.3's AuthenticatedExtendedCardNotConfiguredError.
    expect(errOf(await rpc('agent/getAuthenticatedExtendedCard', {})).code).toBe(-32007);
    const unauthenticated = await rpc('tasks/get', { id: 'a2a-nope' }, {}, null);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -31401, message: expect.stringContaining('Unauthenticated') } });
    const bad = await call(face.api.url, 'POST', '/a2a/jsonrpc', { raw: '{"jsonrpc": "2.0", "id": 1, "method": ', headers: { 'content-type': 'application/json' } });
    expect(errOf(bad)).toEqual({ code: -32700, message: 'Invalid JSON payload.' });
    // The face's body bounds (PLANNER_JSON_MAX_DEPTH, PLANNER_API_BODY_LIMIT: 64 and 1 MiB here).
    const deep = await call(face.api.url, 'POST', '/a2a/jsonrpc', { raw: `{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": ${'['.repeat(70)}${']'.repeat(70)}}`, headers: { 'content-type': 'application/json' } });
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('Invalid Request') } });
  });

  it('errors in v0.3 shape on HTTP+JSON: bare {code, message}', async () => {
    const notFound = await call(face.api.url, 'GET', '/a2a/rest/v1/tasks/a2a-nope');
    expect(notFound.status).toBe(404);
    expect(notFound.body).toEqual({ code: -32001, message: expect.any(String) });
    const badRole = await call(face.api.url, 'POST', '/a2a/rest/v1/message:send', { body: { message: { messageId: randomUUID(), role: 'user', content: [{ text: 'x' }] } } });
    expect(badRole.status).toBe(400);
    expect(badRole.body).toEqual({ code: -32602, message: expect.stringContaining('message.role') });
    const extendedCard = await call(face.api.url, 'GET', '/a2a/rest/v1/card');
    expect(extendedCard.status).toBe(400);
    expect(extendedCard.body).toEqual({ code: -32007, message: expect.stringContaining('not configured') });
    const unauthenticated = await call(face.api.url, 'GET', '/a2a/rest/v1/tasks/a2a-nope', { token: null });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body).toEqual({ code: -31401, message: expect.stringContaining('Unauthenticated') });
    const large = await call(face.api.url, 'POST', '/a2a/rest/v1/message:send', { raw: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ code: -32600, message: expect.stringContaining('PLANNER_API_BODY_LIMIT') });
    // The v1.0 paths are still v1.0's: with the header, google.rpc.Status.
    const v1 = await call(face.api.url, 'GET', '/a2a/rest/tasks/a2a-nope', { headers: { 'a2a-version': '1.0' } });
    expect(JSON.stringify(v1.body)).toContain('TASK_NOT_FOUND');
  });
});

it("the caller's stream bound (PLANNER_STREAMS_PER_CALLER) refuses a v0.3 stream in v0.3's shape on both bindings", async () => {
  const bounded = await startApi(suite.client, suite.queue, { PLANNER_STREAMS_PER_CALLER: '1' });
  const held = new AbortController();
  try {
    const rpcTo = (method: string, params: unknown) => call(bounded.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 3, method, params } });
    const task = ((await rpcTo('message/send', { message: v03Message('Release payments-api'), configuration: { blocking: false } })).body as { result: V03Task }).result;
    suite.track(task.id);
    // One open tasks/resubscribe holds the caller's only slot.
    const open = await fetch(`${bounded.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tasks/resubscribe', params: { id: task.id } }),
      signal: held.signal,
    });
    expect(open.status).toBe(200);
    const refusedRpc = await rpcTo('message/stream', { message: v03Message('Release payments-api') });
    expect(refusedRpc.status).toBe(429);
    expect(refusedRpc.body).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: expect.stringContaining('PLANNER_STREAMS_PER_CALLER') } });
    const refusedRest = await call(bounded.url, 'POST', `/a2a/rest/v1/tasks/${task.id}:subscribe`, { body: {} });
    expect(refusedRest.status).toBe(429);
    expect(refusedRest.body).toEqual({ code: -32000, message: expect.stringContaining('PLANNER_STREAMS_PER_CALLER') });
    await rpcTo('tasks/cancel', { id: task.id });
  } finally {
    held.abort();
    await bounded.close();
  }
});

itReplaysItsHistories(suite);
