/**
 * The client against an agent that misbehaves on purpose (hostile-agent.ts). Every case must
 * end in the right typed error, retryable or not, within the configured timeouts, with no
 * unhandled rejection and with every connection released.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  A2AError,
  createA2AClient,
  isRetryable,
  resolveAgentCard,
  TimeoutError,
  type A2AClient,
  type AgentCard,
  type Binding,
  type StreamResponse,
} from '../../a2a';
import { startHostileAgent, type CustomResponse, type HostileAgent, type HostileMode } from './hostile-agent';
import { collect, stateOf, thrown, userMessage } from './helpers';

const TIMEOUTS = { connectMs: 500, headersMs: 500, bodyMs: 500, streamIdleMs: 300 };
const SECRET = 'sekrit-bearer-token-4711';

let hostile: HostileAgent;
let card: AgentCard;
// jest already fails the running test on an unhandled rejection; this also catches one that
// surfaces between tests.
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown): void => void unhandled.push(e);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  hostile = await startHostileAgent();
  card = await resolveAgentCard(hostile.baseUrl, { agentName: 'hostile' });
});

afterAll(async () => {
  await hostile.close();
  // Let any stray rejection surface before checking.
  await new Promise((r) => setTimeout(r, 50));
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

test('the card tolerates unknown fields; requests carry A2A-Version and the credential', async () => {
  expect(card.name).toBe('hostile');
  expect(hostile.requests[0]?.headers['a2a-version']).toBe('1.0');
  const c = createA2AClient(card, { agentName: 'hostile', credentials: { type: 'bearer', token: SECRET, origins: [new URL(hostile.baseUrl).origin] }, timeouts: TIMEOUTS });
  try {
    hostile.setMode('ok-task');
    const r = await c.sendMessage({ message: userMessage('hi') });
    expect('task' in r && r.task.id).toBe('task-1');
    const last = hostile.requests[hostile.requests.length - 1]!;
    expect(last.headers['a2a-version']).toBe('1.0');
    expect(last.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.parse(last.body)).toMatchObject({ jsonrpc: '2.0', method: 'SendMessage', params: { message: { role: 'ROLE_USER' } } });
  } finally {
    await c.close();
  }
});

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('hostile agent over %s', (binding) => {
  let client: A2AClient;

  beforeEach(() => {
    client = createA2AClient(card, { agentName: 'hostile', preferredBindings: [binding], timeouts: TIMEOUTS });
  });

  afterEach(async () => {
    // close() waits (up to a 1 s grace) for in-flight requests: a leaked request shows as a slow close.
    const started = Date.now();
    await client.close();
    expect(Date.now() - started).toBeLessThan(500);
    await hostile.waitForNoConnections(1000);
  });

  async function expectError(mode: HostileMode, call: () => Promise<unknown>, name: string, retryable: boolean): Promise<A2AError> {
    hostile.setMode(mode);
    const e = await thrown(call);
    expect(e.name).toBe(name);
    expect(e).toBeInstanceOf(A2AError);
    expect(isRetryable(e)).toBe(retryable);
    expect(e.message).toMatch(/^agent hostile \(http:\/\/127\.0\.0\.1:\d+\/(jsonrpc|rest)\) [A-Z][A-Za-z]+: /);
    return e as A2AError;
  }

  /** Frames received before the stream failed, and the failure. */
  async function streamUntilError(mode: HostileMode, it: () => AsyncIterable<StreamResponse>): Promise<{ frames: StreamResponse[]; error: Error; ms: number }> {
    hostile.setMode(mode);
    const frames: StreamResponse[] = [];
    const started = Date.now();
    const error = await thrown(async () => {
      for await (const f of it()) frames.push(f);
    });
    return { frames, error, ms: Date.now() - started };
  }

  const send = (): Promise<unknown> => client.sendMessage({ message: userMessage('hi') });
  const stream = (): AsyncIterable<StreamResponse> => client.sendStreamingMessage({ message: userMessage('hi') });

  test('invalid JSON -> InvalidAgentResponseError', async () => {
    const e = await expectError('invalid-json', send, 'InvalidAgentResponseError', false);
    expect(e.message).toContain('not valid JSON');
  });

  test('HTML with status 200 -> InvalidAgentResponseError', async () => {
    const e = await expectError('html-200', send, 'InvalidAgentResponseError', false);
    expect(e.message).toContain("content-type 'text/html; charset=utf-8'");
  });

  test('a Task with an unknown state -> InvalidAgentResponseError naming the field', async () => {
    const e = await expectError('unknown-state', send, 'InvalidAgentResponseError', false);
    expect(e.message).toMatch(/\) [A-Za-z]+: response field task\.status\.state: invalid enum value 'TASK_STATE_BOGUS'$/);
  });

  test('a missing required field -> InvalidAgentResponseError naming the field', async () => {
    const e = await expectError('missing-field', () => client.getTask({ id: 'task-1' }), 'InvalidAgentResponseError', false);
    // getTask expects a bare Task; the hostile agent sends {task: …} without id, so `id` is missing at the root
    expect(e.message).toMatch(/response field id: missing required field$/);
    const e2 = await expectError('missing-field', send, 'InvalidAgentResponseError', false);
    expect(e2.message).toMatch(/response field task\.id: missing required field$/);
  });

  test('SSE: CRLF and CR line ends, comments, multi-line data, tiny chunks', async () => {
    hostile.setMode('sse-crlf-comments');
    const frames = await collect(stream());
    expect(frames.map(stateOf)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_COMPLETED']);
  });

  test('SSE: comments keep an otherwise silent stream alive past the idle timeout', async () => {
    hostile.setMode('sse-keepalive');
    const started = Date.now();
    const frames = await collect(stream());
    expect(Date.now() - started).toBeGreaterThan(TIMEOUTS.streamIdleMs);
    expect(frames.map(stateOf)).toEqual(['TASK_STATE_COMPLETED']);
  });

  test('SSE: stream ending inside a frame -> ConnectionError (retryable)', async () => {
    const { frames, error } = await streamUntilError('sse-truncated', stream);
    expect(frames).toHaveLength(1);
    expect(error.name).toBe('ConnectionError');
    expect(isRetryable(error)).toBe(true);
    expect(error.message).toContain('middle of a frame');
  });

  test('SSE: a complete event with cut-off JSON -> InvalidAgentResponseError', async () => {
    const { frames, error } = await streamUntilError('sse-truncated-json', stream);
    expect(frames).toHaveLength(1);
    expect(error.name).toBe('InvalidAgentResponseError');
    expect(isRetryable(error)).toBe(false);
  });

  test('SSE: a 10 MiB frame -> InvalidAgentResponseError at the 4 MiB cap, connection dropped', async () => {
    const { error, ms } = await streamUntilError('sse-huge', stream);
    expect(error.name).toBe('InvalidAgentResponseError');
    expect(error.message).toContain('larger than 4194304 bytes');
    expect(isRetryable(error)).toBe(false);
    expect(ms).toBeLessThan(3000);
    await hostile.waitForNoConnections(1000); // released by the reader itself, before close()
  });

  test('SSE: a stalled stream -> TimeoutError(idle) after the idle timeout', async () => {
    const { frames, error, ms } = await streamUntilError('sse-stall', stream);
    expect(frames).toHaveLength(1);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).phase).toBe('idle');
    expect(isRetryable(error)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUTS.streamIdleMs - 20);
    expect(ms).toBeLessThan(TIMEOUTS.streamIdleMs + 1000);
    await hostile.waitForNoConnections(1000);
  });

  test('SSE: a frame with an unknown state -> InvalidAgentResponseError naming the field, connection released', async () => {
    const { frames, error } = await streamUntilError('sse-bad-state', stream);
    expect(frames).toHaveLength(1);
    expect(error.name).toBe('InvalidAgentResponseError');
    expect(error.message).toMatch(/\) [A-Za-z]+: stream frame field statusUpdate\.status\.state: invalid enum value 'TASK_STATE_PAUSED'$/);
    await hostile.waitForNoConnections(1000);
  });

  test('SSE: an error mid-stream -> the mapped A2A error', async () => {
    const { frames, error } = await streamUntilError('sse-error-frame', stream);
    expect(frames).toHaveLength(1);
    expect(error.name).toBe('TaskNotFoundError');
  });

  test('SSE: breaking out of for-await releases the connection', async () => {
    hostile.setMode('sse-stall');
    for await (const f of client.sendStreamingMessage({ message: userMessage('hi') }, { idleTimeoutMs: 0 })) {
      expect(stateOf(f)).toBe('TASK_STATE_WORKING');
      break;
    }
    await hostile.waitForNoConnections(1000);
  });

  test('503 with Retry-After -> HttpStatusError, retryable, retryAfterMs', async () => {
    const e = await expectError('unavailable-503', () => client.getTask({ id: 'task-1' }), 'HttpStatusError', true);
    expect(e.status).toBe(503);
    expect(e.retryAfterMs).toBe(2000);
    const s = await expectError('unavailable-503', () => collect(stream()), 'HttpStatusError', true);
    expect(s.retryAfterMs).toBe(2000);
  });

  test('429 with an HTTP-date Retry-After -> retryable, retryAfterMs from the date', async () => {
    const e = await expectError('throttled-429', send, 'HttpStatusError', true);
    expect(e.status).toBe(429);
    expect(e.retryAfterMs).toBeGreaterThan(3000);
    expect(e.retryAfterMs).toBeLessThanOrEqual(5000);
  });

  test('connection reset mid-body -> ConnectionError (retryable)', async () => {
    await expectError('reset-mid-body', send, 'ConnectionError', true);
  });

  test('a body that stalls -> TimeoutError(body) after bodyMs', async () => {
    const started = Date.now();
    const e = await expectError('stall-mid-body', send, 'TimeoutError', true);
    expect((e as TimeoutError).phase).toBe('body');
    expect(Date.now() - started).toBeLessThan(TIMEOUTS.bodyMs + 1000);
  });

  test('sequential calls reuse keep-alive connections', async () => {
    hostile.setMode('ok-task');
    const before = hostile.totalConnections();
    for (let i = 0; i < 10; i++) await send();
    // undici frees a socket a tick after the body ends, so a call made at once may take a
    // second one; after that the pool only reuses.
    expect(hostile.totalConnections() - before).toBeLessThanOrEqual(2);
  });

  test('connection reset mid-stream -> ConnectionError after the frames received', async () => {
    const { frames, error } = await streamUntilError('reset-mid-stream', stream);
    expect(frames).toHaveLength(1);
    expect(error.name).toBe('ConnectionError');
    expect(isRetryable(error)).toBe(true);
  });

  test('no response headers -> TimeoutError(headers); call deadline -> TimeoutError(call); abort -> AbortedError', async () => {
    let started = Date.now();
    const h = await expectError('no-headers', () => client.getTask({ id: 'task-1' }), 'TimeoutError', true);
    expect((h as TimeoutError).phase).toBe('headers');
    expect(Date.now() - started).toBeLessThan(TIMEOUTS.headersMs + 1000);

    started = Date.now();
    const c = await expectError('no-headers', () => client.getTask({ id: 'task-1' }, { timeoutMs: 100 }), 'TimeoutError', true);
    expect((c as TimeoutError).phase).toBe('call');
    expect(Date.now() - started).toBeLessThan(400);

    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await expectError('no-headers', () => client.getTask({ id: 'task-1' }, { signal: ac.signal }), 'AbortedError', false);
    const pre = new AbortController();
    pre.abort();
    await expectError('no-headers', () => client.getTask({ id: 'task-1' }, { signal: pre.signal }), 'AbortedError', false);
  });

  test('aborting a stream mid-way -> AbortedError, connection released', async () => {
    hostile.setMode('sse-stall');
    const ac = new AbortController();
    const frames: StreamResponse[] = [];
    const e = await thrown(async () => {
      for await (const f of client.sendStreamingMessage({ message: userMessage('hi') }, { signal: ac.signal, idleTimeoutMs: 0 })) {
        frames.push(f);
        setTimeout(() => ac.abort(), 20);
      }
    });
    expect(frames).toHaveLength(1);
    expect(e.name).toBe('AbortedError');
    expect(isRetryable(e)).toBe(false);
    await hostile.waitForNoConnections(1000);
  });

  test('credentials never appear in error messages, even when the agent echoes them', async () => {
    const c = createA2AClient(card, { agentName: 'hostile', preferredBindings: [binding], credentials: { type: 'bearer', token: SECRET, origins: [new URL(hostile.baseUrl).origin] } });
    try {
      hostile.setMode('echo-auth');
      const e = await thrown(() => c.getTask({ id: 'task-1' }));
      expect(e.message).not.toContain(SECRET);
      expect(e.message).toContain('[REDACTED]');
      expect(JSON.stringify(e)).not.toContain(SECRET);
    } finally {
      await c.close();
    }
  });
});

describe('error mapping from real (custom) responses', () => {
  let rest: A2AClient;
  let rpc: A2AClient;
  beforeAll(() => {
    rest = createA2AClient(card, { agentName: 'hostile', preferredBindings: ['HTTP+JSON'], timeouts: TIMEOUTS });
    rpc = createA2AClient(card, { agentName: 'hostile', preferredBindings: ['JSONRPC'], timeouts: TIMEOUTS });
  });
  afterAll(async () => {
    await Promise.all([rest.close(), rpc.close()]);
    await hostile.waitForNoConnections(1000);
  });

  const info = (reason: string): unknown[] => [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }];
  const status = (code: number, st: string, reason?: string): string =>
    JSON.stringify({ error: { code, status: st, message: `${st} happened`, ...(reason ? { details: info(reason) } : {}) } });

  const restCases: [string, CustomResponse, string, boolean][] = [
    ['v1.0.1: 400 + TASK_NOT_CANCELABLE', { status: 400, body: status(400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE') }, 'TaskNotCancelableError', false],
    ['v1.0.0: 409 + TASK_NOT_CANCELABLE', { status: 409, body: status(409, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE') }, 'TaskNotCancelableError', false],
    ['v1.0.0: 415 without reason', { status: 415, body: status(415, 'INVALID_ARGUMENT') }, 'ContentTypeNotSupportedError', false],
    ['v1.0.1: 400 + CONTENT_TYPE_NOT_SUPPORTED', { status: 400, body: status(400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED') }, 'ContentTypeNotSupportedError', false],
    ['v1.0.0: 502 + INVALID_AGENT_RESPONSE', { status: 502, body: status(502, 'INTERNAL', 'INVALID_AGENT_RESPONSE') }, 'InvalidAgentResponseError', false],
    ['400 + PUSH_NOTIFICATION_NOT_SUPPORTED', { status: 400, body: status(400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED') }, 'PushNotificationNotSupportedError', false],
    ['400 + EXTENSION_SUPPORT_REQUIRED', { status: 400, body: status(400, 'FAILED_PRECONDITION', 'EXTENSION_SUPPORT_REQUIRED') }, 'ExtensionSupportRequiredError', false],
    ['400 + EXTENDED_AGENT_CARD_NOT_CONFIGURED', { status: 400, body: status(400, 'FAILED_PRECONDITION', 'EXTENDED_AGENT_CARD_NOT_CONFIGURED') }, 'ExtendedAgentCardNotConfiguredError', false],
    ['400 without reason is not guessed', { status: 400, body: status(400, 'FAILED_PRECONDITION') }, 'HttpStatusError', false],
    ['400 INVALID_ARGUMENT without reason', { status: 400, body: status(400, 'INVALID_ARGUMENT') }, 'InvalidParamsError', false],
    ['404 Status without reason', { status: 404, body: status(404, 'NOT_FOUND') }, 'TaskNotFoundError', false],
    ['404 HTML page (wrong URL)', { status: 404, contentType: 'text/html', body: '<h1>Cannot GET</h1>' }, 'HttpStatusError', false],
    ['500 INTERNAL', { status: 500, body: status(500, 'INTERNAL') }, 'InternalError', true],
    ['502 from a proxy', { status: 502, contentType: 'text/plain', body: 'Bad Gateway' }, 'HttpStatusError', true],
    ['408', { status: 408, contentType: 'text/plain', body: '' }, 'HttpStatusError', true],
    ['401', { status: 401, body: status(401, 'UNAUTHENTICATED') }, 'UnauthenticatedError', false],
    ['unknown reason', { status: 400, body: status(400, 'FAILED_PRECONDITION', 'SOMETHING_NEW') }, 'UnknownRemoteError', false],
    ['unknown reason with a 503', { status: 503, body: status(503, 'UNAVAILABLE', 'SOMETHING_NEW') }, 'UnknownRemoteError', true],
    ['problem+json', { status: 503, contentType: 'application/problem+json', body: JSON.stringify({ title: 'Unavailable', detail: 'maintenance' }) }, 'HttpStatusError', true],
  ];
  test.each(restCases)('REST %s', async (_label, response, name, retryable) => {
    hostile.setMode('custom', response);
    const e = await thrown(() => rest.getTask({ id: 'task-1' }));
    expect(e.name).toBe(name);
    expect(isRetryable(e)).toBe(retryable);
  });

  const rpcError = (code: number, reason?: string, id: unknown = 1): string =>
    JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: 'nope', ...(reason ? { data: info(reason) } : {}) } });
  const rpcCases: [string, CustomResponse, string, boolean][] = [
    ['-32700', { status: 200, body: rpcError(-32700, undefined, null) }, 'JsonRpcParseError', false],
    ['-32600', { status: 200, body: rpcError(-32600, undefined, null) }, 'InvalidRequestError', false],
    ['-32601', { status: 200, body: rpcError(-32601, undefined, null) }, 'MethodNotFoundError', false],
    ['-32602', { status: 200, body: rpcError(-32602, undefined, null) }, 'InvalidParamsError', false],
    ['-32603', { status: 200, body: rpcError(-32603, undefined, null) }, 'InternalError', true],
    ['-32005', { status: 200, body: rpcError(-32005, 'CONTENT_TYPE_NOT_SUPPORTED', null) }, 'ContentTypeNotSupportedError', false],
    ['-32006', { status: 200, body: rpcError(-32006, 'INVALID_AGENT_RESPONSE', null) }, 'InvalidAgentResponseError', false],
    ['-32007', { status: 200, body: rpcError(-32007, undefined, null) }, 'ExtendedAgentCardNotConfiguredError', false],
    ['-32008', { status: 200, body: rpcError(-32008, undefined, null) }, 'ExtensionSupportRequiredError', false],
    ['custom code, known reason', { status: 200, body: rpcError(-32050, 'TASK_NOT_FOUND', null) }, 'TaskNotFoundError', false],
    ['custom code', { status: 200, body: rpcError(-32050, undefined, null) }, 'UnknownRemoteError', false],
    ['error envelope with HTTP 503', { status: 503, headers: { 'retry-after': '1' }, body: rpcError(-32603, undefined, null) }, 'InternalError', true],
    ['response id for another request', { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} }) }, 'InvalidAgentResponseError', false],
    ['result and error both present', { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: null, result: {}, error: { code: 1, message: 'x' } }) }, 'InvalidAgentResponseError', false],
    ['not a JSON-RPC envelope', { status: 200, body: JSON.stringify({ task: {} }) }, 'InvalidAgentResponseError', false],
  ];
  test.each(rpcCases)('JSON-RPC %s', async (_label, response, name, retryable) => {
    hostile.setMode('custom', response);
    const e = await thrown(() => rpc.getTask({ id: 'task-1' }));
    expect(e.name).toBe(name);
    expect(isRetryable(e)).toBe(retryable);
  });

  test('REST subscribe falls back from POST to GET on 405', async () => {
    hostile.setMode('subscribe-405');
    const before = hostile.requests.length;
    const frames = await collect(rest.subscribeToTask({ id: 'task-1' }));
    expect(frames.map(stateOf)).toEqual(['TASK_STATE_COMPLETED']);
    expect(hostile.requests.slice(before).map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /rest/tasks/task-1:subscribe',
      'GET /rest/tasks/task-1:subscribe',
    ]);
  });

  test('REST cancel sends an object body, never null; ids are path-encoded', async () => {
    hostile.setMode('ok-task');
    const before = hostile.requests.length;
    await thrown(() => rest.cancelTask({ id: 'a/b c' })); // the ok-task answer is {task}, not a Task
    const r = hostile.requests[before]!;
    expect(`${r.method} ${r.url}`).toBe('POST /rest/tasks/a%2Fb%20c:cancel');
    expect(r.body).toBe('{}');
    expect(r.headers['content-type']).toBe('application/a2a+json');
  });
});

describe('cards and connections', () => {
  afterEach(() => hostile.setCard(hostile.card));

  test('a v0.3 card is read as one whose interfaces speak 0.3; a broken one fails with the missing field named', async () => {
    const v03 = { name: 'old', description: 'v0.3', url: `${hostile.baseUrl}/rpc`, preferredTransport: 'JSONRPC', protocolVersion: '0.3', version: '1', capabilities: {}, skills: [] };
    hostile.setCard(v03);
    const c = await resolveAgentCard(hostile.baseUrl);
    expect(c.supportedInterfaces).toEqual([{ url: `${hostile.baseUrl}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }]);
    expect(createA2AClient(c).a2aVersion).toBe('0.3');
    hostile.setCard({ ...v03, capabilities: undefined });
    const e = await thrown(() => resolveAgentCard(hostile.baseUrl));
    expect(e.name).toBe('InvalidAgentResponseError');
    expect(e.message).toContain('agent card field capabilities: missing required field');
  });

  test('no usable interface -> NoCompatibleInterfaceError', async () => {
    hostile.setCard({ ...hostile.card, supportedInterfaces: [{ url: `${hostile.baseUrl}/grpc`, protocolBinding: 'GRPC', protocolVersion: '1.0' }, { url: `${hostile.baseUrl}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.2' }] });
    const c = await resolveAgentCard(hostile.baseUrl);
    const e = await thrown(async () => createA2AClient(c));
    expect(e.name).toBe('NoCompatibleInterfaceError');
    expect(e.message).toContain('GRPC 1.0, JSONRPC 0.2');
  });

  test("the chosen interface's tenant goes into every request", async () => {
    hostile.setCard({
      ...hostile.card,
      supportedInterfaces: [
        { url: '/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' },
        { url: '/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' },
      ],
    });
    const c = await resolveAgentCard(hostile.baseUrl);
    expect(c.supportedInterfaces[0]?.url).toBe(`${hostile.baseUrl}/jsonrpc`); // relative URLs resolved
    const rpc = createA2AClient(c, { preferredBindings: ['JSONRPC'] });
    const rest = createA2AClient(c, { preferredBindings: ['HTTP+JSON'] });
    try {
      hostile.setMode('custom', { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { id: 't', status: { state: 'TASK_STATE_WORKING' } } }) });
      expect(rpc.tenant).toBe('acme');
      await rpc.getTask({ id: 't' });
      expect(JSON.parse(hostile.requests[hostile.requests.length - 1]!.body)).toMatchObject({ params: { id: 't', tenant: 'acme' } });
      hostile.setMode('custom', { status: 200, body: JSON.stringify({ id: 't', status: { state: 'TASK_STATE_WORKING' } }) });
      await rest.getTask({ id: 't', historyLength: 2 });
      expect(hostile.requests[hostile.requests.length - 1]!.url).toBe('/rest/acme/tasks/t?historyLength=2');
    } finally {
      await Promise.all([rpc.close(), rest.close()]);
    }
  });

  test('connection refused -> ConnectionError (retryable)', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    const e = await thrown(() => resolveAgentCard(`http://127.0.0.1:${port}`, { agentName: 'gone' }));
    expect(e.name).toBe('ConnectionError');
    expect(isRetryable(e)).toBe(true);
    expect(e.message).toContain('ECONNREFUSED');
  });
});
