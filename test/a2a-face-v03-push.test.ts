// Push notifications for A2A v0.3 callers of the face: `tasks/pushNotificationConfig/*` over
// JSON-RPC and the `/v1/tasks/{id}/pushNotificationConfigs` paths over HTTP+JSON, without
// A2A-Version (raw, and by the Python a2a-sdk 0.3.26 client on both bindings), and a webhook registered over v0.3 getting v0.3's bare `kind`-tagged events while
// a v1.0 caller's webhook on the same task keeps getting v1.0's StreamResponse, through the seed
// plan to completed.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer } from './agents';
import { call, TOKEN } from './support/api';
import { faceWithAgents } from './support/face-client';
import { runPythonV03Client } from './support/python-v03-client';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

const WEBHOOK_SECRET = 'webhook-secret-of-the-v03-suite-01';
const suite = plannerSuite('a2a-face-v03-push', () => ({ PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET }));
const face = faceWithAgents(suite, () => Promise.all([startCodeReviewer(), startDeployer()]), { PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET });

/** One POST the receiver got. */
interface Received {
  path: string;
  type: string | undefined;
  token: string | undefined;
  body: Record<string, unknown>;
}

let receiver: { server: Server; url: string; got: Received[] };
beforeAll(async () => {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const token = req.headers['x-a2a-notification-token'];
      got.push({ path: req.url!, type: req.headers['content-type'], token: typeof token === 'string' ? token : undefined, body: JSON.parse(raw) as Record<string, unknown> });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver = { server, got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
});
afterAll(() => new Promise((r) => receiver?.server.close(r)));

const rpc = (method: string, params: unknown, headers: Record<string, string> = {}) => call(face.api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 5, method, params }, headers });
const resultOf = <T>(c: { body: unknown }): T => {
  const b = c.body as { result?: T; error?: unknown };
  if (b.result === undefined) throw new Error(`expected a result, got ${JSON.stringify(c.body)}`);
  return b.result;
};
const at = (path: string) => receiver.got.filter((r) => r.path === path);
/** The states a v0.3 webhook got, in order: `status-update` events. */
const v03States = (path: string) => at(path).flatMap((r) => (r.body.kind === 'status-update' ? [(r.body.status as { state: string }).state] : []));

it('registers inline and by set / get / list / delete over v0.3; v0.3 webhooks get v0.3 events, a v1.0 one on the same task v1.0 frames', async () => {
  const message = { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Release payments-api' }], metadata: { skill: 'release' } };
  const inline = { url: `${receiver.url}/v03/inline`, token: 'token-inline' };
  const task = resultOf<{ kind: string; id: string; contextId: string; status: { state: string; message: { parts: Array<{ text: string }> } } }>(
    await rpc('message/send', { message, configuration: { blocking: true, pushNotificationConfig: inline } }),
  );
  suite.track(task.id, `${task.id}.review`, `${task.id}.deploy`);
  expect(task).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
  expect(task.status.message.parts[0]!.text).toContain(BASE_BRANCH_QUESTION);

  // tasks/pushNotificationConfig/set with the caller's id; get by id, and by the task alone (its first config).
  const set = resultOf<{ taskId: string; pushNotificationConfig: { id: string; url: string; token?: string } }>(
    await rpc('tasks/pushNotificationConfig/set', { taskId: task.id, pushNotificationConfig: { id: 'cfg-b', url: `${receiver.url}/v03/set`, token: 'token-b' } }),
  );
  expect(set).toEqual({ taskId: task.id, pushNotificationConfig: { id: 'cfg-b', url: `${receiver.url}/v03/set`, token: 'token-b' } });
  expect(resultOf(await rpc('tasks/pushNotificationConfig/get', { id: task.id, pushNotificationConfigId: 'cfg-b' }))).toEqual(set);
  const first = resultOf<{ pushNotificationConfig: { url: string; token?: string } }>(await rpc('tasks/pushNotificationConfig/get', { id: task.id }));
  expect(first.pushNotificationConfig).toMatchObject({ url: inline.url, token: 'token-inline' });
  // Over HTTP+JSON's v0.3 paths, in both body forms: @a2a-js/sdk's TaskPushNotificationConfig (here
  // without `name`: the path names the task) and the Python client's create request (`config` inside).
  const configsPath = `/a2a/rest/v1/tasks/${task.id}/pushNotificationConfigs`;
  const rest = await call(face.api.url, 'POST', configsPath, { body: { pushNotificationConfig: { id: 'cfg-rest', url: `${receiver.url}/v03/rest` } } });
  expect(rest.status).toBe(201);
  expect(rest.body).toMatchObject({ name: `tasks/${task.id}/pushNotificationConfigs/cfg-rest`, pushNotificationConfig: { id: 'cfg-rest', url: `${receiver.url}/v03/rest` } });
  const py = await call(face.api.url, 'POST', configsPath, {
    body: { parent: `tasks/${task.id}`, configId: 'cfg-py', config: { name: `tasks/${task.id}/pushNotificationConfigs/cfg-py`, pushNotificationConfig: { url: `${receiver.url}/v03/py` } } },
  });
  expect(py.status).toBe(201);
  expect(py.body).toMatchObject({ pushNotificationConfig: { id: 'cfg-py', url: `${receiver.url}/v03/py` } });
  const elsewhere = await call(face.api.url, 'POST', configsPath, { body: { name: 'tasks/a2a-another/pushNotificationConfigs/x', pushNotificationConfig: { url: `${receiver.url}/v03/x` } } });
  expect(elsewhere.status).toBe(400);
  expect(elsewhere.body).toEqual({ code: -32602, message: expect.stringContaining('name') });
  // The Python a2a-sdk 0.3.26 client's set_task_callback / get_task_callback, on each binding.
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    const steps = await runPythonV03Client(face.api.url, TOKEN, binding, 'push', [task.id, `${receiver.url}/v03/${binding}`]);
    const id = `py-${binding.toLowerCase().replace('+', '-')}`;
    expect(steps).toEqual([
      { step: 'set', taskId: task.id, id, url: `${receiver.url}/v03/${binding}` },
      { step: 'get', taskId: task.id, id, url: `${receiver.url}/v03/${binding}`, token: `token-${id}` },
    ]);
  }
  // A v1.0 caller's webhook on the same task.
  const v1 = await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'cfg-v1', url: `${receiver.url}/v1` }, { 'a2a-version': '1.0' });
  expect(resultOf<{ id: string }>(v1).id).toBe('cfg-v1');
  const listed = resultOf<Array<{ taskId: string; pushNotificationConfig: { id: string } }>>(await rpc('tasks/pushNotificationConfig/list', { id: task.id }));
  const ids = ['cfg-b', 'cfg-rest', 'cfg-py', 'py-jsonrpc', 'py-http-json', 'cfg-v1'];
  expect(listed.map((c) => c.pushNotificationConfig.id).slice(1)).toEqual(ids);
  expect(listed.every((c) => c.taskId === task.id)).toBe(true);
  const restList = (await call(face.api.url, 'GET', configsPath)).body as { configs: Array<{ pushNotificationConfig: { id: string } }> };
  expect(restList.configs.map((c) => c.pushNotificationConfig.id).slice(1)).toEqual(ids);
  // Deleted over v0.3, on each binding: they get nothing more.
  expect((await rpc('tasks/pushNotificationConfig/delete', { id: task.id, pushNotificationConfigId: 'cfg-rest' })).body).toMatchObject({ result: null });
  expect((await call(face.api.url, 'DELETE', `${configsPath}/cfg-py`)).status).toBe(204);

  // The inline webhook got the task's first changes as v0.3 events, with its token.
  await eventually(() => v03States('/v03/inline').includes('input-required'), 'the inline webhook got input-required');
  const inlineGot = at('/v03/inline');
  expect(inlineGot.every((r) => r.type?.startsWith('application/json') && r.token === 'token-inline')).toBe(true);
  expect(inlineGot[0]!.body).toMatchObject({ kind: 'status-update', taskId: task.id, contextId: task.contextId, final: false, status: { message: { kind: 'message', role: 'agent' } } });

  // The answer, then the approval out of band: every webhook still registered gets the rest.
  const answered = resultOf<{ status: { state: string; message: { parts: Array<{ text: string }> } } }>(
    await rpc('message/send', { message: { ...message, messageId: randomUUID(), parts: [{ kind: 'text', text: 'main' }], taskId: task.id, contextId: task.contextId }, configuration: { blocking: true } }),
  );
  expect(answered.status.state).toBe('auth-required');
  const url = /https?:\/\/\S+\/approve\/[0-9a-f-]+/.exec(answered.status.message.parts.map((p) => p.text).join(''))![0];
  expect((await fetch(url, { method: 'POST' })).ok).toBe(true);
  for (const path of ['/v03/inline', '/v03/set', '/v03/JSONRPC', '/v03/HTTP+JSON']) await eventually(() => v03States(path).at(-1) === 'completed', `${path} got completed`);
  await eventually(() => at('/v1').some((r) => (r.body.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state === 'TASK_STATE_COMPLETED'), 'the v1.0 webhook got COMPLETED');

  for (const path of ['/v03/inline', '/v03/set', '/v03/JSONRPC', '/v03/HTTP+JSON']) {
    const states = v03States(path);
    expect(states).toEqual(expect.arrayContaining(['auth-required', 'working', 'completed']));
    expect(at(path).filter((r) => r.body.kind === 'status-update' && r.body.final === true).map((r) => (r.body.status as { state: string }).state)).toEqual(['completed']);
    // Artifacts as v0.3 artifact-update events, kind-tagged parts.
    const artifacts = at(path).filter((r) => r.body.kind === 'artifact-update');
    expect(artifacts.length).toBeGreaterThan(0);
    expect(artifacts[0]!.body).toMatchObject({ artifact: { parts: [expect.objectContaining({ kind: expect.any(String) })] } });
  }
  expect(at('/v03/set').every((r) => r.token === 'token-b')).toBe(true);
  // The v1.0 webhook: StreamResponse members as application/a2a+json, never a kind tag.
  expect(at('/v1').every((r) => r.type?.startsWith('application/a2a+json') && r.body.kind === undefined && (r.body.statusUpdate ?? r.body.artifactUpdate))).toBe(true);
  // The deleted ones got nothing after the answer.
  for (const path of ['/v03/rest', '/v03/py']) expect(v03States(path)).not.toContain('auth-required');
});

itReplaysItsHistories(suite);
