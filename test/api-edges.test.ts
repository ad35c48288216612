// The API's edges over real HTTP: bearer auth (and that a refused call changes nothing), bad input
// named by its field path (400), bodies over the limit (413), wrong content types (415), the public
// routes, the checked-in OpenAPI document, and the refusal to start without a token.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../runtime/config';
import { startServer, type RunningServer } from '../server/main';
import { startCodeReviewer, type AgentHandle } from './agents';
import { apiEnv, call, OTHER_DEPLOYMENT_TOKEN, startApi, TOKEN } from './support/api';
import { DIFF, waitForStatus } from './support/delegated';
import { itReplaysItsHistories, plannerSuite } from './support/suite';

const ROOT = join(__dirname, '..');
const NEXT_TOKEN = 'the-next-token-after-rotation-42';
let reviewer: AgentHandle;
let api: RunningServer;
const suite = plannerSuite('api-edges');
beforeAll(async () => {
  reviewer = await startCodeReviewer();
  // Operators' tokens: they answer the task this suite starts through its client (it has no owner).
  api = await startApi(suite.client, suite.queue, { PLANNER_API_TOKEN: '', PLANNER_API_OPERATOR_TOKEN: `${TOKEN}, ${NEXT_TOKEN}`, PLANNER_API_BODY_LIMIT: '2048' });
});
afterAll(() => Promise.all([api?.close(), reviewer?.close()]));

it('401 without a token, with a wrong one, or with another deployment’s, and nothing changes; both rotation tokens work', async () => {
  const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
  await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');
  const path = `/v1/tasks/${handle.workflowId}/answer`;
  for (const token of [null, 'wrong', OTHER_DEPLOYMENT_TOKEN, `${TOKEN}x`, TOKEN.slice(0, -1)]) {
    const r = await call(api.url, 'POST', path, { body: { text: 'main' }, token });
    expect({ token, status: r.status }).toEqual({ token, status: 401 });
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(r.body).toMatchObject({ error: { code: 'unauthenticated', message: expect.any(String) } });
  }
  const basic = await call(api.url, 'GET', '/v1/inbox', { token: null, headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` } });
  expect(basic.status).toBe(401);
  // A body too big or of the wrong type from a stranger is still just a 401.
  expect((await call(api.url, 'POST', path, { token: 'wrong', raw: 'x'.repeat(10_000), headers: { 'content-type': 'text/plain' } })).status).toBe(401);
  expect((await call(api.url, 'GET', '/v1/inbox', { token: null })).status).toBe(401);
  expect((await call(api.url, 'GET', `/v1/tasks/${handle.workflowId}`, { token: 'wrong' })).status).toBe(401);

  // Nothing reached the workflow or the agent.
  const still = await waitForStatus(handle, () => true, 'status');
  expect(still).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', turn: 1 });
  expect(reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${handle.workflowId}/`))).toHaveLength(1);
  const history = await handle.fetchHistory();
  expect(history.events?.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateAdmittedEventAttributes)).toBe(false);

  // Both tokens of a rotation are accepted.
  expect((await call(api.url, 'GET', `/v1/tasks/${handle.workflowId}`, { token: NEXT_TOKEN })).status).toBe(200);
  const ok = await call(api.url, 'POST', path, { body: { text: 'main' }, token: TOKEN });
  expect(ok.status).toBe(200);
});

it('400 names the field path and the problem; 413 over the body limit; 415 for a body that is not JSON', async () => {
  const path = '/v1/tasks/some-task/answer';
  const cases: Array<[unknown, string, RegExp]> = [
    [{ text: 42 }, 'body.text', /expected string, got number/],
    [{ text: 'main', turn: 'one' }, 'body.turn', /expected (int|number), got string/],
    [{ text: 'main', turn: 0 }, 'body.turn', />= 1/],
    [{ text: 'main', colour: 'blue' }, 'body', /colour/],
    [{ text: '   ' }, 'body.text', /blank/],
    [{}, 'body', /exactly one of text or data/],
    [{ text: 'a', data: { b: 1 } }, 'body', /exactly one of text or data/],
    [[1, 2], 'body', /expected object, got array/],
  ];
  for (const [body, at, why] of cases) {
    const r = await call(api.url, 'POST', path, { body });
    expect({ body, status: r.status }).toEqual({ body, status: 400 });
    const err = (r.body as { error: { code: string; message: string; details: Array<{ path: string; message: string }> } }).error;
    expect(err.code).toBe('invalid_request');
    expect(err.details.some((d) => d.path === at && why.test(d.message))).toBe(true);
    expect(err.message).toContain(at);
  }
  const notJson = await call(api.url, 'POST', path, { raw: '{"text": ', headers: { 'content-type': 'application/json' } });
  expect(notJson.status).toBe(400);
  expect(notJson.body).toMatchObject({ error: { code: 'invalid_request', message: expect.stringContaining('not valid JSON') } });
  const noBody = await call(api.url, 'POST', path);
  expect(noBody.status).toBe(400);
  expect(noBody.text).toContain('body');

  const big = await call(api.url, 'POST', path, { body: { text: 'x'.repeat(4096) } });
  expect(big.status).toBe(413);
  expect(big.body).toMatchObject({ error: { code: 'payload_too_large', message: expect.stringContaining('PLANNER_API_BODY_LIMIT') } });

  for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
    const r = await call(api.url, 'POST', path, { raw: 'text=main', headers: { 'content-type': type } });
    expect({ type, status: r.status }).toEqual({ type, status: 415 });
    expect(r.body).toMatchObject({ error: { code: 'unsupported_media_type', message: expect.stringContaining(type) } });
  }
  const badQuery = await call(api.url, 'GET', '/v1/inbox?pageSize=0&colour=blue');
  expect(badQuery.status).toBe(400);
  const details = (badQuery.body as { error: { details: Array<{ path: string }> } }).error.details.map((d) => d.path);
  expect(details).toEqual(expect.arrayContaining(['query.pageSize', 'query']));
  const badPath = await call(api.url, 'GET', '/v1/tasks/%E0%A4%A');
  expect(badPath.status).toBe(400);
  const noRoute = await call(api.url, 'GET', '/v1/nothing-here');
  expect(noRoute.status).toBe(404);
  expect(noRoute.body).toMatchObject({ error: { code: 'not_found' } });
});

it('serves /healthz and the OpenAPI document without a token; the document is the checked-in docs/openapi.json', async () => {
  const health = await call(api.url, 'GET', '/healthz', { token: null });
  expect(health.status).toBe(200);
  expect(health.body).toEqual({ ok: true });
  expect((await call(api.url, 'GET', '/readyz', { token: null })).body).toEqual({ ready: true });
  expect(health.headers.get('x-request-id')).toMatch(/\S/);
  const echoed = await call(api.url, 'GET', '/healthz', { token: null, headers: { 'x-request-id': 'req-123' } });
  expect(echoed.headers.get('x-request-id')).toBe('req-123');

  const doc = await call(api.url, 'GET', '/v1/openapi.json', { token: null });
  expect(doc.status).toBe(200);
  const checkedIn: unknown = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8'));
  expect(doc.body).toEqual(checkedIn); // if this fails: npm run openapi, and commit docs/openapi.json
  const d = doc.body as { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown[] }>> };
  expect(d.openapi).toBe('3.1.0');
  expect(d.paths['/v1/tasks/{workflowId}/answer']?.post?.requestBody).toBeDefined();
  expect(d.paths['/healthz']?.get?.security).toEqual([]);
});

it('refuses to start without a token unless PLANNER_API_INSECURE=1, naming the variable', async () => {
  const config = loadConfig(apiEnv(suite.queue, { PLANNER_API_TOKEN: '', PLANNER_API_OPERATOR_TOKEN: '' }));
  await expect(startServer({ config, temporal: suite.client, logger: pino({ level: 'silent' }), port: 0 })).rejects.toThrow(/PLANNER_API_TOKEN is not set.*PLANNER_API_INSECURE=1/);
  expect(() => loadConfig(apiEnv(suite.queue, { PLANNER_API_TOKEN: 'short' }))).toThrow(/PLANNER_API_TOKEN: each token needs at least 16 characters/);

  // The runnable entry, as an operator starts it: one line naming the variable, exit 1, nothing listening.
  const { PLANNER_API_TOKEN: _t, PLANNER_API_OPERATOR_TOKEN: _o, ...env } = { ...process.env, ...apiEnv(suite.queue, { PLANNER_PORT: '0' }) };
  const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', join(ROOT, 'server', 'main.ts')], { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/PLANNER_API_TOKEN is not set/);

  const insecure = await startServer({
    config: loadConfig(apiEnv(suite.queue, { PLANNER_API_TOKEN: '', PLANNER_API_OPERATOR_TOKEN: '', PLANNER_API_INSECURE: '1' })),
    temporal: suite.client,
    logger: pino({ level: 'silent' }),
    port: 0,
  });
  try {
    expect((await call(insecure.url, 'GET', '/v1/inbox', { token: null })).status).toBe(200);
  } finally {
    await insecure.close();
  }
});

itReplaysItsHistories(suite);
