// Body limits on every HTTP surface of `planner serve`: the API, the A2A face (JSON-RPC and REST)
// and the push receiver. Each reads at most its limit and answers 413 in its own error shape, with a
// Content-Length or without one (chunked); under the limit a body is read whole.
import type { RunningServer } from '../server/main';
import { pushToken } from '../activities/push-token';
import { PUSH_MAX_BODY_BYTES } from '../server/push/receiver';
import { call, startApi, TOKEN } from './support/api';
import { plannerSuite } from './support/suite';

const LIMIT = 300_000; // above @a2a-js/sdk's own 100 KB default, so the configured limit is what counts
const SECRET = 'push-secret-for-body-limits-0123';
const suite = plannerSuite('body-limits', () => ({}), { workers: false });
let api: RunningServer;

beforeAll(async () => {
  api = await startApi(suite.client, suite.queue, { PLANNER_API_BODY_LIMIT: String(LIMIT), PLANNER_WEBHOOK_SECRET: SECRET });
});
afterAll(async () => {
  await api?.close();
});

const pad = (bytes: number): string => 'p'.repeat(bytes);
const rpc = (padBytes: number): string => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'no-such-task', pad: pad(padBytes) } });

/** A body sent chunked (no Content-Length), so the limit must hold while reading. */
function chunked(text: string): { body: ReadableStream<Uint8Array>; duplex: 'half' } {
  const bytes = Buffer.from(text);
  return {
    body: new ReadableStream({
      start(c) {
        for (let i = 0; i < bytes.length; i += 64 * 1024) c.enqueue(bytes.subarray(i, i + 64 * 1024));
        c.close();
      },
    }),
    duplex: 'half',
  };
}

async function post(path: string, text: string, headers: Record<string, string>, streamed = false): Promise<{ status: number; body: unknown }> {
  const init = streamed ? chunked(text) : { body: text };
  const res = await fetch(`${api.url}${path}`, { method: 'POST', headers, ...init } as RequestInit);
  const raw = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = raw;
  }
  return { status: res.status, body };
}

const rpcHeaders = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'a2a-version': '1.0' };

describe.each([false, true])('chunked (no Content-Length): %s', (streamed) => {
  it('JSON-RPC face: a body under PLANNER_API_BODY_LIMIT is read whole; one over it is a JSON-RPC 413', async () => {
    const under = await post('/a2a/jsonrpc', rpc(200_000), rpcHeaders, streamed);
    expect(under.status).toBe(200);
    expect(under.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32001 } });
    const over = await post('/a2a/jsonrpc', rpc(400_000), rpcHeaders, streamed);
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining(`${LIMIT} bytes (PLANNER_API_BODY_LIMIT)`) } });
  });

  it('REST face: the same limit, 413 as a google.rpc.Status', async () => {
    const headers = { ...rpcHeaders, 'content-type': 'application/a2a+json' };
    const body = (n: number): string => JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: pad(n) }] }, metadata: { skill: 'no-such-skill' } });
    const under = await post('/a2a/rest/message:send', body(200_000), headers, streamed);
    expect(under.status).toBe(400);
    expect(JSON.stringify(under.body)).toContain('no-such-skill');
    const over = await post('/a2a/rest/message:send', body(400_000), headers, streamed);
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: { code: 413, message: expect.stringContaining(`${LIMIT} bytes (PLANNER_API_BODY_LIMIT)`) } });
  });

  it('API: 413 payload_too_large over the limit', async () => {
    const over = await post('/v1/plans', JSON.stringify({ plan: { name: pad(400_000) } }), { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, streamed);
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: { code: 'payload_too_large', message: expect.stringContaining('PLANNER_API_BODY_LIMIT') } });
  });

  it('push receiver: 413 over its own 1 MiB limit, once the token is right', async () => {
    const token = pushToken(SECRET, 'wf-1', 'task-1');
    const frame = JSON.stringify({ statusUpdate: { taskId: 'task-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, pad: pad(PUSH_MAX_BODY_BYTES + 10) } });
    const over = await post('/a2a/push/wf-1/task-1', frame, { 'x-a2a-notification-token': token, 'content-type': 'application/json' }, streamed);
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ error: `body over ${PUSH_MAX_BODY_BYTES} bytes` });
  });
});

it('bad JSON keeps each face its own parse error', async () => {
  const bad = await call(api.url, 'POST', '/a2a/jsonrpc', { raw: '{"jsonrpc": "2.0", ', headers: rpcHeaders });
  expect(bad.status).toBe(200);
  expect(bad.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  const restBad = await call(api.url, 'POST', '/a2a/rest/message:send', { raw: '{"message": ', headers: { ...rpcHeaders, 'content-type': 'application/a2a+json' } });
  expect(restBad.status).toBe(400);
  expect(restBad.body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
});
