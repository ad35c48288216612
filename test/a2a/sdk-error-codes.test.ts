/**
 * Every error code and ErrorInfo reason the four A2A SDKs put on the wire, as each sends it
 * (JSON-RPC envelope or google.rpc.Status with its HTTP status), served over real HTTP by the
 * hostile agent: each must become a named class that says whether a retry can help.
 * Sources read: a2a-go v2 (internal/jsonrpc/jsonrpc.go codeToError, internal/rest/rest.go
 * errorMappings, a2a/errors.go errorReason), a2a-python 1.x (utils/errors.py
 * JSON_RPC_ERROR_CODE_MAP and A2A_ERROR_MAPPING, utils/error_handlers.py), a2a-java
 * (spec/A2AErrorCodes.java: reason = enum name, its gRPC status and HTTP code), a2a-js
 * (errors/json_rpc.ts A2A_ERROR_CODE, errors/rest.ts, errors/base.ts reasons).
 */
import { createA2AClient, isRetryable, resolveAgentCard, type A2AClient, type A2AError, type AgentCard } from '../../a2a';
import { startHostileAgent, type CustomResponse, type HostileAgent } from './hostile-agent';
import { thrown } from './helpers';

const TIMEOUTS = { connectMs: 500, headersMs: 1000, bodyMs: 1000, streamIdleMs: 300 };

let hostile: HostileAgent;
let card: AgentCard;
let rest: A2AClient;
let rpc: A2AClient;

beforeAll(async () => {
  hostile = await startHostileAgent();
  card = await resolveAgentCard(hostile.baseUrl, { agentName: 'hostile' });
  rest = createA2AClient(card, { agentName: 'hostile', preferredBindings: ['HTTP+JSON'], timeouts: TIMEOUTS });
  rpc = createA2AClient(card, { agentName: 'hostile', preferredBindings: ['JSONRPC'], timeouts: TIMEOUTS });
});
afterAll(async () => {
  await Promise.all([rest.close(), rpc.close()]);
  await hostile.close();
});

const info = (reason: string): unknown[] => [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }];
const rpcError = (code: number, reason?: string): CustomResponse => ({
  status: 200,
  body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message: 'refused', ...(reason ? { data: info(reason) } : {}) } }),
});
const restStatus = (http: number, status: string, reason?: string): CustomResponse => ({
  status: http,
  body: JSON.stringify({ error: { code: http, status, message: `${status} happened`, ...(reason ? { details: info(reason) } : {}) } }),
});

type Case = [label: string, response: CustomResponse, name: string, retryable: boolean];

const rpcCases: Case[] = [
  ['a2a-go -31401 UNAUTHENTICATED (ListTasks without a user)', rpcError(-31401, 'UNAUTHENTICATED'), 'UnauthenticatedError', false],
  ['a2a-go -31401 without data', rpcError(-31401), 'UnauthenticatedError', false],
  ['a2a-go -31403 UNAUTHORIZED', rpcError(-31403, 'UNAUTHORIZED'), 'PermissionDeniedError', false],
  ['a2a-go -32000 SERVER_ERROR', rpcError(-32000, 'SERVER_ERROR'), 'ServerError', true],
  ['a2a-go -32603 INTERNAL_ERROR (also its default for unknown errors)', rpcError(-32603, 'INTERNAL_ERROR'), 'InternalError', true],
  ['a2a-java -32603 INTERNAL', rpcError(-32603, 'INTERNAL'), 'InternalError', true],
  ['a2a-java -32700 JSON_PARSE', rpcError(-32700, 'JSON_PARSE'), 'JsonRpcParseError', false],
  ['a2a-go -32700 PARSE_ERROR', rpcError(-32700, 'PARSE_ERROR'), 'JsonRpcParseError', false],
  ['a2a-js -32602 INVALID_PARAMS (RequestMalformedError)', rpcError(-32602, 'INVALID_PARAMS'), 'InvalidParamsError', false],
  ['a2a-go -32001 TASK_NOT_FOUND', rpcError(-32001, 'TASK_NOT_FOUND'), 'TaskNotFoundError', false],
  [
    'a2a-go -32602 INVALID_PARAMS for a message to a terminal task (a2a-go#438): UnsupportedOperationError',
    { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32602, message: 'executor setup failed: failed to load exec ctx: task in a terminal state "TASK_STATE_CANCELED": invalid params', data: info('INVALID_PARAMS') } }) },
    'UnsupportedOperationError',
    false,
  ],
  ['a2a-python < 1.3 -32602 "Task T is in terminal state" (a2a-python#1205): UnsupportedOperationError', { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32602, message: 'Task T is in terminal state: TASK_STATE_COMPLETED' } }) }, 'UnsupportedOperationError', false],
  ['a2a-js -32007 EXTENDED_AGENT_CARD_NOT_CONFIGURED', rpcError(-32007, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'), 'ExtendedAgentCardNotConfiguredError', false],
  ['a2a-js -32009 VERSION_NOT_SUPPORTED', rpcError(-32009, 'VERSION_NOT_SUPPORTED'), 'VersionNotSupportedError', false],
  ['an auth proxy in front of JSON-RPC: plain HTTP 401', { status: 401, contentType: 'text/plain', body: 'Unauthorized' }, 'UnauthenticatedError', false],
  ['an auth proxy in front of JSON-RPC: plain HTTP 403', { status: 403, contentType: 'text/plain', body: 'Forbidden' }, 'PermissionDeniedError', false],
];

const restCases: Case[] = [
  [
    'a2a-go 400 INVALID_ARGUMENT + INVALID_PARAMS for a message to a terminal task (a2a-go#438): UnsupportedOperationError',
    { status: 400, body: JSON.stringify({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'executor setup failed: failed to load exec ctx: task in a terminal state "TASK_STATE_COMPLETED": invalid params', details: info('INVALID_PARAMS') } }) },
    'UnsupportedOperationError',
    false,
  ],
  ['a2a-go 401 UNAUTHENTICATED', restStatus(401, 'UNAUTHENTICATED', 'UNAUTHENTICATED'), 'UnauthenticatedError', false],
  ['a2a-go 403 PERMISSION_DENIED + UNAUTHORIZED', restStatus(403, 'PERMISSION_DENIED', 'UNAUTHORIZED'), 'PermissionDeniedError', false],
  ['403 PERMISSION_DENIED without reason', restStatus(403, 'PERMISSION_DENIED'), 'PermissionDeniedError', false],
  ['plain 401 from a middleware', { status: 401, contentType: 'text/plain', body: 'Unauthorized' }, 'UnauthenticatedError', false],
  ['a2a-go 500 INTERNAL + SERVER_ERROR', restStatus(500, 'INTERNAL', 'SERVER_ERROR'), 'ServerError', true],
  ['a2a-go/python/js 500 INTERNAL + INTERNAL_ERROR', restStatus(500, 'INTERNAL', 'INTERNAL_ERROR'), 'InternalError', true],
  ['a2a-java 500 INTERNAL + INTERNAL', restStatus(500, 'INTERNAL', 'INTERNAL'), 'InternalError', true],
  ['a2a-python 500 INTERNAL + UNKNOWN_ERROR (an unmapped A2AError)', restStatus(500, 'INTERNAL', 'UNKNOWN_ERROR'), 'InternalError', true],
  ['a2a-go 504 DEADLINE_EXCEEDED + INTERNAL_ERROR', restStatus(504, 'DEADLINE_EXCEEDED', 'INTERNAL_ERROR'), 'InternalError', true],
  ['a2a-go 501 UNIMPLEMENTED + METHOD_NOT_FOUND', restStatus(501, 'UNIMPLEMENTED', 'METHOD_NOT_FOUND'), 'MethodNotFoundError', false],
  ['a2a-python/java 404 NOT_FOUND + METHOD_NOT_FOUND (not a missing task)', restStatus(404, 'NOT_FOUND', 'METHOD_NOT_FOUND'), 'MethodNotFoundError', false],
  ['a2a-python/go/js 400 INVALID_ARGUMENT + INVALID_PARAMS', restStatus(400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'), 'InvalidParamsError', false],
  ['a2a-java 422 INVALID_ARGUMENT + INVALID_PARAMS', restStatus(422, 'INVALID_ARGUMENT', 'INVALID_PARAMS'), 'InvalidParamsError', false],
  ['a2a-python/go/java 400 INVALID_ARGUMENT + INVALID_REQUEST', restStatus(400, 'INVALID_ARGUMENT', 'INVALID_REQUEST'), 'InvalidRequestError', false],
  ['a2a-java 400 INVALID_ARGUMENT + JSON_PARSE', restStatus(400, 'INVALID_ARGUMENT', 'JSON_PARSE'), 'JsonRpcParseError', false],
  ['a2a-go 400 INVALID_ARGUMENT + PARSE_ERROR', restStatus(400, 'INVALID_ARGUMENT', 'PARSE_ERROR'), 'JsonRpcParseError', false],
  ['a2a-java 400 UNIMPLEMENTED + VERSION_NOT_SUPPORTED', restStatus(400, 'UNIMPLEMENTED', 'VERSION_NOT_SUPPORTED'), 'VersionNotSupportedError', false],
  ['a2a-java 502 INTERNAL + INVALID_AGENT_RESPONSE', restStatus(502, 'INTERNAL', 'INVALID_AGENT_RESPONSE'), 'InvalidAgentResponseError', false],
];

async function errorFor(client: A2AClient, response: CustomResponse, call: 'GetTask' | 'ListTasks'): Promise<A2AError> {
  hostile.setMode('custom', response);
  return (await thrown(() => (call === 'GetTask' ? client.getTask({ id: 'task-1' }) : client.listTasks({})))) as A2AError;
}

test.each(rpcCases)('JSON-RPC: %s', async (_label, response, name, retryable) => {
  const e = await errorFor(rpc, response, 'GetTask');
  expect(e.name).toBe(name);
  expect(isRetryable(e)).toBe(retryable);
});

test.each(restCases)('HTTP+JSON: %s', async (_label, response, name, retryable) => {
  const e = await errorFor(rest, response, 'GetTask');
  expect(e.name).toBe(name);
  expect(isRetryable(e)).toBe(retryable);
});

test('a refusal names the agent, the call and the cause, and says what to do', async () => {
  const e = await errorFor(rpc, rpcError(-31401, 'UNAUTHENTICATED'), 'ListTasks');
  expect(e.message).toMatch(/^agent hostile \(http:\/\/127\.0\.0\.1:\d+\/jsonrpc\) ListTasks: -31401 UNAUTHENTICATED: refused/);
  expect(e.message).toContain('A2A_AGENT_CREDENTIALS');
  expect(e.operation).toBe('ListTasks');
  expect(e.jsonRpcCode).toBe(-31401);
  expect(e.reason).toBe('UNAUTHENTICATED');
  const denied = await errorFor(rest, restStatus(403, 'PERMISSION_DENIED', 'UNAUTHORIZED'), 'ListTasks');
  expect(denied.message).toMatch(/^agent hostile \(http:\/\/127\.0\.0\.1:\d+\/rest\) ListTasks: HTTP 403/);
  expect(denied.status).toBe(403);
});
