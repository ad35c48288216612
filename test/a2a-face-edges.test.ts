// The planner's A2A face at the spec's edges (issue 20, items 4-6), over real HTTP on both
// bindings: a part whose media type the card does not list is refused (-32005 / 400
// CONTENT_TYPE_NOT_SUPPORTED) and runs nothing; a push config on a completed task is answered, a
// client's config id is kept (and a second create with it replaces the first); a 401 answers in
// each binding's shape; a quiet stream carries `: keep-alive` comment frames.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { RunningServer } from '../server/main';
import { loadConfig } from '../runtime/config';
import { principalOf } from '../server/auth';
import { contextIdFor, taskIdFor } from '../server/face/tasks';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { apiEnv, call, startApi, TOKEN } from './support/api';
import { itReplaysItsHistories, plannerSuite } from './support/suite';

const WEBHOOK_SECRET = 'webhook-secret-of-the-edges-suite-01';
const suite = plannerSuite('a2a-face-edges', () => ({ PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET }));
let reviewer: AgentHandle;
let deployer: AgentHandle;
let api: RunningServer;
let hook: { server: Server; url: string };

/** A webhook that takes every POST (the push configs here need somewhere to point). */
function startHook(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

beforeAll(async () => {
  for (const level of ['error', 'warn'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
  [reviewer, deployer, hook] = await Promise.all([startCodeReviewer(), startDeployer(), startHook()]);
  process.env.PLANNER_A2A_AGENT_URLS = JSON.stringify({ 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl });
  api = await startApi(suite.client, suite.queue, { PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET, PLANNER_SSE_KEEPALIVE_MS: '200' });
});
afterAll(async () => {
  delete process.env.PLANNER_A2A_AGENT_URLS;
  await api?.close();
  await Promise.all([reviewer?.close(), deployer?.close(), new Promise((r) => hook?.server.close(r))]);
  jest.restoreAllMocks();
});

const V1 = { 'a2a-version': '1.0' };
type Err = { code: number; message: string };
type RestErr = { error: { code: number; status: string; message: string; details: Array<{ reason?: string }> } };
type WireTask = { id: string; contextId: string; status: { state: string; message?: { parts: Array<{ text?: string }> } }; history?: unknown[] };
type WirePart = { text?: string; url?: string; data?: unknown; mediaType?: string };
const rpc = (method: string, params: unknown) => call(api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: V1 });
const rest = (method: string, path: string, body?: unknown) => call(api.url, method, `/a2a/rest${path}`, { body, headers: V1 });
const errOf = (c: { body: unknown }): Err => {
  const e = (c.body as { error?: Err }).error;
  if (!e) throw new Error(`expected an error, got ${JSON.stringify(c.body)}`);
  return e;
};
const resultOf = <T>(c: { body: unknown }): T => {
  const b = c.body as { result?: T; error?: Err };
  if (!b.result) throw new Error(`expected a result, got ${JSON.stringify(b.error)}`);
  return b.result;
};
const message = (parts: WirePart[], ids: { taskId?: string; contextId?: string } = {}) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts, metadata: { skill: 'release' }, ...ids });
const text = (t: string): WirePart => ({ text: t });
const statusText = (t: WireTask): string => (t.status.message?.parts ?? []).map((p) => p.text ?? '').join('');

/** The plan a first message would have started: its workflow does not exist. */
async function expectNoPlan(messageId: string): Promise<void> {
  const id = taskIdFor(principalOf(TOKEN), contextIdFor(messageId), messageId);
  await expect(suite.client.workflow.getHandle(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
}

/** The seed plan started over JSON-RPC, at its reviewer's question. */
async function atQuestion(configuration?: unknown): Promise<WireTask> {
  const task = resultOf<{ task: WireTask }>(await rpc('SendMessage', { message: message([text('Release payments-api')]), ...(configuration ? { configuration } : {}) })).task;
  suite.track(task.id, `${task.id}.review`);
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  expect(statusText(task)).toContain(BASE_BRANCH_QUESTION);
  return task;
}

/** Reads an SSE response until `until` holds of what arrived (or 10 s pass), then leaves. */
async function readSse(res: Response, until: (text: string) => boolean): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let got = '';
  const deadline = Date.now() + 10_000;
  try {
    while (!until(got) && Date.now() < deadline) {
      const next = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(() => r(undefined), deadline - Date.now()))]);
      if (!next || next.done) break;
      got += decoder.decode(next.value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return got;
}
const sse = (path: string, body: unknown) =>
  fetch(`${api.url}${path}`, { method: 'POST', headers: { ...V1, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(body) });
const KEEP_ALIVE = '\n: keep-alive\n\n';

describe('a part whose media type the card does not list', () => {
  const image: WirePart = { url: 'https://example.com/diagram.png', mediaType: 'image/png' };

  it('is refused on a first message over JSON-RPC (-32005, blocking and streaming), and no plan starts', async () => {
    const m = message([text('Release payments-api'), image]);
    const e = errOf(await rpc('SendMessage', { message: m }));
    expect(e.code).toBe(-32005);
    expect(e.message).toContain('image/png');
    expect(e.message).toContain('message.parts[1]');
    const streamed = message([{ text: 'Release payments-api', mediaType: 'text/html' }]);
    expect(errOf(await rpc('SendStreamingMessage', { message: streamed })).code).toBe(-32005);
    await expectNoPlan(m.messageId);
    await expectNoPlan(streamed.messageId);
  });

  it('is refused on a first message over HTTP+JSON (400 INVALID_ARGUMENT, reason CONTENT_TYPE_NOT_SUPPORTED), and no plan starts', async () => {
    const m = message([text('Release payments-api'), { data: { inputs: {} }, mediaType: 'application/xml' }]);
    const r = await rest('POST', '/message:send', { message: m });
    expect(r.status).toBe(400);
    const body = r.body as RestErr;
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.details.map((d) => d.reason)).toContain('CONTENT_TYPE_NOT_SUPPORTED');
    expect(body.error.message).toContain('application/xml');
    await expectNoPlan(m.messageId);
  });

  it('is refused on an answer over both bindings: the question stays asked; listed types (with parameters) pass', async () => {
    const task = await atQuestion();
    const ids = { taskId: task.id, contextId: task.contextId };
    expect(errOf(await rpc('SendMessage', { message: message([{ text: '<b>main</b>', mediaType: 'text/html' }], ids) })).code).toBe(-32005);
    const r = await rest('POST', '/message:send', { message: message([text('main'), image], ids) });
    expect(r.status).toBe(400);
    expect((r.body as RestErr).error.details.map((d) => d.reason)).toContain('CONTENT_TYPE_NOT_SUPPORTED');
    const still = resultOf<WireTask>(await rpc('GetTask', { id: task.id }));
    expect(still.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${task.id}.`)).map((m) => m.text.split('\n')[0])).toEqual(['Please review this diff of payments-api:']);
    // A listed type, with a parameter and in another case, is the answer.
    const next = resultOf<{ task: WireTask }>(await rpc('SendMessage', { message: message([{ text: 'main', mediaType: 'Text/Plain; charset=utf-8' }], ids) })).task;
    expect(next.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    suite.track(`${task.id}.deploy`);
    await rpc('CancelTask', { id: task.id }); // no plan of this suite outlives its workers
  });
});

describe('push configs: client ids and finished tasks', () => {
  it('keeps a client-supplied id (inline, JSON-RPC and HTTP+JSON); the same id again replaces that config; an unusable id is -32602', async () => {
    const task = await atQuestion({ taskPushNotificationConfig: { id: 'inline-hook', url: `${hook.url}/inline` } });
    const made = resultOf<{ id: string; url: string }>(await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'my-hook-1', url: `${hook.url}/one` }));
    expect(made).toMatchObject({ id: 'my-hook-1', url: `${hook.url}/one` });
    const viaRest = await rest('POST', `/tasks/${task.id}/pushNotificationConfigs`, { id: 'rest-hook', url: `${hook.url}/rest` });
    expect(viaRest.status).toBe(201);
    expect(viaRest.body).toMatchObject({ id: 'rest-hook' });
    const replaced = resultOf<{ id: string; url: string }>(await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'my-hook-1', url: `${hook.url}/one-again` }));
    expect(replaced).toMatchObject({ id: 'my-hook-1', url: `${hook.url}/one-again` });
    const listed = resultOf<{ configs: Array<{ id: string; url: string }> }>(await rpc('ListTaskPushNotificationConfigs', { taskId: task.id })).configs;
    expect(listed.map((c) => [c.id, c.url])).toEqual([
      ['inline-hook', `${hook.url}/inline`],
      ['my-hook-1', `${hook.url}/one-again`],
      ['rest-hook', `${hook.url}/rest`],
    ]);
    expect(resultOf<{ url: string }>(await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'rest-hook' })).url).toBe(`${hook.url}/rest`);
    const bad = errOf(await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'a/b', url: `${hook.url}/bad` }));
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain('id');
    expect(bad.message).toContain('"a/b"');
    // A config without an id still gets one.
    const given = resultOf<{ id: string }>(await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, url: `${hook.url}/anon` }));
    expect(given.id).toMatch(/^[0-9a-f-]{36}$/);
    await rpc('CancelTask', { id: task.id });
  });

  it('on a COMPLETED task is answered as created (its id kept) and kept nowhere: Get is -32001, List omits it, Delete succeeds', async () => {
    const task = await atQuestion();
    const approval = resultOf<{ task: WireTask }>(await rpc('SendMessage', { message: message([text('main')], { taskId: task.id, contextId: task.contextId }) })).task;
    expect(approval.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    suite.track(`${task.id}.deploy`);
    const approve = /https?:\/\/\S+\/approve\/[0-9a-f-]+/.exec(statusText(approval))![0];
    expect((await fetch(approve, { method: 'POST' })).ok).toBe(true);
    await suite.client.workflow.getHandle(task.id).result();
    expect(resultOf<WireTask>(await rpc('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_COMPLETED');

    const made = resultOf<{ id: string; taskId: string; url: string }>(await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'after-the-end', url: `${hook.url}/late` }));
    expect(made).toMatchObject({ id: 'after-the-end', taskId: task.id, url: `${hook.url}/late` });
    const viaRest = await rest('POST', `/tasks/${task.id}/pushNotificationConfigs`, { url: `${hook.url}/late-rest` });
    expect(viaRest.status).toBe(201);
    expect((viaRest.body as { id: string }).id).toMatch(/^[0-9a-f-]{36}$/);
    expect(errOf(await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'after-the-end' })).code).toBe(-32001);
    const listed = resultOf<{ configs?: Array<{ id: string }> }>(await rpc('ListTaskPushNotificationConfigs', { taskId: task.id }));
    expect(listed.configs ?? []).toEqual([]);
    expect((await rest('DELETE', `/tasks/${task.id}/pushNotificationConfigs/after-the-end`)).status).toBe(204);
    // The webhook is still checked: a refused URL is refused on an ended task too.
    expect(errOf(await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, url: 'ftp://example.com/hook' })).code).toBe(-32602);
  });
});

describe('401 on the face', () => {
  it('HTTP+JSON answers google.rpc.Status (UNAUTHENTICATED); JSON-RPC a JSON-RPC error (-31401, id null), as a2a-go; /v1 keeps its own shape', async () => {
    const info = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'UNAUTHENTICATED', domain: 'a2a-protocol.org' }];
    for (const token of [null, 'not-a-token-of-this-planner']) {
      const r = await call(api.url, 'POST', '/a2a/rest/message:send', { token, headers: V1, body: { message: message([text('hi')]) } });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(r.body).toEqual({ error: { code: 401, status: 'UNAUTHENTICATED', message: expect.stringMatching(/Bearer|token/) as unknown, details: info } });
      const j = await call(api.url, 'POST', '/a2a/jsonrpc', { token, headers: V1, body: { jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } } });
      expect(j.status).toBe(401);
      expect(j.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -31401, message: expect.stringMatching(/^Unauthenticated: /) as unknown, data: info } });
    }
    const list = await call(api.url, 'GET', '/a2a/rest/tasks', { token: null, headers: V1 });
    expect((list.body as RestErr).error.status).toBe('UNAUTHENTICATED');
    const v1 = await call(api.url, 'GET', '/v1/plans', { token: null });
    expect(v1.status).toBe(401);
    expect(v1.body).toHaveProperty('error.code', 'unauthenticated');
  });
});

describe('keep-alive comment frames', () => {
  it('a stream held at AUTH_REQUIRED carries `: keep-alive` frames on SendStreamingMessage (JSON-RPC) and SubscribeToTask (HTTP+JSON)', async () => {
    const task = await atQuestion();
    // The answer as a stream: it stays open through the approval the deployer then waits on.
    const answer = await sse('/a2a/jsonrpc', { jsonrpc: '2.0', id: 3, method: 'SendStreamingMessage', params: { message: message([text('main')], { taskId: task.id, contextId: task.contextId }) } });
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const got = await readSse(answer, (t) => t.includes('TASK_STATE_AUTH_REQUIRED') && t.slice(t.indexOf('TASK_STATE_AUTH_REQUIRED')).includes(KEEP_ALIVE));
    expect(got).toContain('TASK_STATE_AUTH_REQUIRED');
    suite.track(`${task.id}.deploy`);
    // After the approval request, the stream has nothing to say: a comment frame, not silence.
    expect(got.slice(got.indexOf('TASK_STATE_AUTH_REQUIRED'))).toContain(KEEP_ALIVE);

    const sub = await sse(`/a2a/rest/tasks/${task.id}:subscribe`, {});
    expect(sub.status).toBe(200);
    const subbed = await readSse(sub, (t) => t.includes(KEEP_ALIVE));
    expect(subbed).toMatch(/^data: /);
    expect(subbed).toContain(KEEP_ALIVE);
    await rpc('CancelTask', { id: task.id });
  });

  it('PLANNER_SSE_KEEPALIVE_MS that is not a number of milliseconds stops start-up, naming the variable and the value', () => {
    expect(() => loadConfig(apiEnv(suite.queue, { PLANNER_SSE_KEEPALIVE_MS: 'soon' }))).toThrow(/PLANNER_SSE_KEEPALIVE_MS.*"soon"/);
    expect(() => loadConfig(apiEnv(suite.queue, { PLANNER_SSE_KEEPALIVE_MS: '5' }))).toThrow(/PLANNER_SSE_KEEPALIVE_MS.*"5"/);
    expect(loadConfig(apiEnv(suite.queue))).toHaveProperty('PLANNER_SSE_KEEPALIVE_MS', 15_000);
  });
});

itReplaysItsHistories(suite);
