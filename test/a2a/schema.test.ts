/** Wire schemas, field-path explanations, and the pure parts of the error mapping. */
import * as a2a from '../../a2a';
import {
  A2AError,
  AgentCardSchema,
  cleanText,
  isInterrupted,
  isTerminal,
  ListTasksResponseSchema,
  MessageSchema,
  parseRetryAfter,
  parseWith,
  PartSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  TaskStateSchema,
  toA2AError,
  type TaskState,
} from '../../a2a';

const problem = (schema: Parameters<typeof parseWith>[0], data: unknown): string => {
  const r = parseWith(schema, data);
  if (r.ok) throw new Error('expected a schema failure');
  return `${r.problem.path}: ${r.problem.detail}`;
};

const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };

describe('task states', () => {
  test('all nine values; terminal and interrupted sets', () => {
    const all = TaskStateSchema.options;
    expect(all).toHaveLength(9);
    const terminal = all.filter(isTerminal);
    const interrupted = all.filter(isInterrupted);
    expect(terminal.sort()).toEqual(['TASK_STATE_CANCELED', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED']);
    expect(interrupted.sort()).toEqual(['TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_INPUT_REQUIRED']);
    const s: TaskState = 'TASK_STATE_AUTH_REQUIRED';
    expect(isTerminal(s)).toBe(false);
  });
});

describe('schemas', () => {
  test('unknown fields are tolerated (and dropped); no kind or final is needed', () => {
    const r = TaskSchema.parse({ ...task, kind: 'task', generation: 3, future: { x: 1 }, status: { ...task.status, final: true } });
    expect(r).toEqual({ ...task, generation: 3 });
  });

  test('missing required fields and unknown enum values name the path', () => {
    expect(problem(TaskSchema, { contextId: 'c', status: { state: 'TASK_STATE_WORKING' } })).toBe('id: missing required field');
    expect(problem(SendMessageResponseSchema, { task: { ...task, status: { state: 'TASK_STATE_BOGUS' } } })).toBe(
      "task.status.state: invalid enum value 'TASK_STATE_BOGUS'",
    );
    expect(problem(StreamResponseSchema, { statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_DONE' } } })).toBe(
      'statusUpdate.contextId: missing required field',
    );
    expect(
      problem(TaskSchema, { ...task, history: [{ messageId: 'm', role: 'user', parts: [{ text: 'v0.3 role' }] }] }),
    ).toBe("history[0].role: invalid enum value 'user'");
    expect(problem(MessageSchema, { messageId: 'm', role: 'ROLE_USER', parts: [] })).toBe('parts: must have at least 1 element(s)');
  });

  test('Part is a oneof: exactly one of text, raw, url, data', () => {
    expect(PartSchema.parse({ data: null, mediaType: 'application/json' })).toEqual({ data: null, mediaType: 'application/json' });
    expect(PartSchema.parse({ url: 'https://x/y.pdf', filename: 'y.pdf' })).toEqual({ url: 'https://x/y.pdf', filename: 'y.pdf' });
    expect(problem(PartSchema, { mediaType: 'text/plain' })).toBe(': a part must have exactly one of text, raw, url, data');
    expect(problem(PartSchema, { text: 'a', raw: 'YQ==' })).toBe(': a part must have exactly one of text, raw, url, data');
    expect(problem(MessageSchema, { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 1 }] })).toBe('parts[0].text: expected string, got number');
    // v0.3 part shape
    expect(problem(MessageSchema, { messageId: 'm', role: 'ROLE_AGENT', parts: [{ kind: 'text', texts: 'x' }] })).toMatch(/^parts\[0\]: /);
  });

  test('StreamResponse is read by member name', () => {
    for (const frame of [
      { task },
      { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }], contextId: 'c' } },
      { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } },
      { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ data: { x: 1 } }] }, append: true, lastChunk: true } },
    ]) {
      expect(StreamResponseSchema.safeParse(frame).success).toBe(true);
    }
    expect(problem(StreamResponseSchema, { result: { task } })).toBe(': expected exactly one of task, message, statusUpdate, artifactUpdate');
    expect(problem(StreamResponseSchema, { task, statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } })).toMatch(
      /exactly one of/,
    );
  });

  test('ListTasks defaults what proto3 JSON may omit', () => {
    expect(ListTasksResponseSchema.parse({ pageSize: 50 })).toEqual({ tasks: [], nextPageToken: '', pageSize: 50 });
  });

  test('AgentCard: required fields, v1.0 interfaces', () => {
    const card = {
      name: 'a',
      description: 'd',
      version: '1',
      supportedInterfaces: [{ url: 'http://x/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    };
    expect(AgentCardSchema.parse(card).skills).toEqual([]);
    const { capabilities: _c, ...noCaps } = card;
    expect(problem(AgentCardSchema, noCaps)).toBe('capabilities: missing required field');
    expect(problem(AgentCardSchema, { ...card, supportedInterfaces: [] })).toBe('supportedInterfaces: must have at least 1 element(s)');
  });
});

describe('errors', () => {
  test("every error class's name is its class name", () => {
    const classes = (Object.entries(a2a) as [string, unknown][]).filter(
      (e): e is [string, new (m: string, x?: unknown) => A2AError] =>
        typeof e[1] === 'function' && (e[1] as { prototype?: unknown }).prototype instanceof A2AError,
    );
    expect(classes.length).toBe(25); // 9 A2A, 5 JSON-RPC, 3 that SDKs add (auth, -32000), 8 transport/local (AddressRefusedError: the outbound policy)
    for (const [exportName, ctor] of classes) {
      const e = exportName === 'HttpStatusError' ? new ctor('m', 500) : exportName === 'TimeoutError' ? new ctor('m', 'idle') : new ctor('m');
      expect(e.name).toBe(exportName);
      expect(e).toBeInstanceOf(Error);
    }
  });

  test('Retry-After: seconds or HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  test('peer text is cleaned and scrubbed of secrets', () => {
    expect(cleanText('bad token abc-secret-123\r\ninjected', ['abc-secret-123'])).toBe('bad token [REDACTED] injected');
    expect(cleanText('x'.repeat(400)).length).toBe(301);
  });

  test('transport failures map by code', () => {
    const ctx = { agent: 'a', url: 'http://u:p@h/x?k=v' };
    const err = (code: string): Error => Object.assign(new Error(code), { code });
    expect(toA2AError(err('UND_ERR_CONNECT_TIMEOUT'), ctx)).toMatchObject({ name: 'TimeoutError', phase: 'connect', retryable: true });
    expect(toA2AError(err('UND_ERR_BODY_TIMEOUT'), ctx)).toMatchObject({ name: 'TimeoutError', phase: 'body' });
    expect(toA2AError(err('ENOTFOUND'), ctx)).toMatchObject({ name: 'ConnectionError', errno: 'ENOTFOUND', retryable: true });
    expect(toA2AError(err('UND_ERR_SOCKET'), ctx)).toMatchObject({ name: 'ConnectionError' });
    expect(toA2AError(err('UND_ERR_ABORTED'), ctx)).toMatchObject({ name: 'AbortedError', retryable: false });
    expect(toA2AError(new AggregateError([err('ECONNREFUSED')]), ctx)).toMatchObject({ name: 'ConnectionError', errno: 'ECONNREFUSED' });
    // userinfo and query never reach a message
    expect(toA2AError(err('ECONNRESET'), ctx).message).toMatch(/^agent a \(http:\/\/h\/x\): /);
  });
});
