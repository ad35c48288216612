/** The v0.3 edge (a2a/compat/v0_3/), pure: cards and the version choice, the lift to v1.0, the lowering to v0.3, both wire dialects, errors. */
import { NoCompatibleInterfaceError, parseAgentCard, parsePushNotification, parseWith, selectInterface, type AgentCard } from '../../a2a';
import { V03SendResultSchema, V03StreamEventSchema } from '../../a2a/compat/v0_3/schema';
import { eventToV1, taskToV1 } from '../../a2a/compat/v0_3/to-v1';
import { methodOf, paramsToV03 } from '../../a2a/compat/v0_3/to-v0_3';
import { ProtoSendResponseSchema, ProtoStreamResponseSchema, ProtoTaskPushConfigSchema, sendRequestToProto } from '../../a2a/compat/v0_3/rest-shapes';
import { errorFromHttpStatus } from '../../a2a/errors/decode';
import { AgentRefSchema } from '../../workflows/delegated-task/input';
import { PlanAgentSchema } from '../../workflows/plan/input';

const v03Card = {
  protocolVersion: '0.3.0',
  name: 'deployer',
  description: 'd',
  url: 'http://127.0.0.1:1/a2a/jsonrpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [
    { url: 'http://127.0.0.1:1/a2a/jsonrpc', transport: 'JSONRPC' },
    { url: 'http://127.0.0.1:1/a2a/rest', transport: 'HTTP+JSON' },
  ],
  version: '1',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json'],
  skills: [{ id: 's', name: 's', description: 's', tags: [], security: [{ bearer: [] }] }],
  securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  supportsAuthenticatedExtendedCard: true,
};
const ctx = { agent: 'a', url: 'http://127.0.0.1:1' };
const card = (json: unknown): AgentCard => {
  const r = parseAgentCard(json);
  if (!r.ok) throw new Error(`${r.problem.path}: ${r.problem.detail}`);
  return r.value;
};

describe('cards and the version choice', () => {
  it('lifts a v0.3 card to a v1.0 card whose interfaces say 0.3, preferred first, each once', () => {
    const c = card(v03Card);
    expect(c.supportedInterfaces).toEqual([
      { url: 'http://127.0.0.1:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3.0' },
      { url: 'http://127.0.0.1:1/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3.0' },
    ]);
    expect(c.capabilities).toEqual({ streaming: true, pushNotifications: false, extendedAgentCard: true });
    expect(c.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } } });
    expect(c.skills[0]!.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
  });

  it('picks v1.0 whenever the card offers it, v0.3 otherwise, and the version forced when asked', () => {
    const both = card({ ...v03Card, supportedInterfaces: [{ url: 'http://127.0.0.1:1/v1', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }] });
    expect(both.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(['1.0', '0.3.0', '0.3.0']);
    expect(selectInterface(both, undefined, ctx)).toMatchObject({ version: '1.0', binding: 'HTTP+JSON', iface: { url: 'http://127.0.0.1:1/v1' } });
    expect(selectInterface(both, ['JSONRPC'], ctx)).toMatchObject({ version: '0.3', binding: 'JSONRPC' });
    expect(selectInterface(both, undefined, ctx, '0.3')).toMatchObject({ version: '0.3', binding: 'JSONRPC' });
    expect(selectInterface(card(v03Card), ['HTTP+JSON'], ctx)).toMatchObject({ version: '0.3', iface: { url: 'http://127.0.0.1:1/a2a/rest' } });
    expect(() => selectInterface(card(v03Card), undefined, ctx, '1.0')).toThrow(NoCompatibleInterfaceError);
    expect(() => selectInterface(card(v03Card), undefined, ctx, '1.0')).toThrow(/protocol version 1\.0 \(card offers: JSONRPC 0\.3\.0, HTTP\+JSON 0\.3\.0\)/);
  });

  it('names the field a broken v0.3 card lacks, and refuses a card of no version it speaks', () => {
    const r = parseAgentCard({ ...v03Card, capabilities: undefined });
    expect(r.ok ? '' : `${r.problem.path}: ${r.problem.detail}`).toMatch(/^capabilities: /);
    const v02 = parseAgentCard({ ...v03Card, protocolVersion: '0.2.5' });
    expect(v02.ok ? '' : `${v02.problem.path}: ${v02.problem.detail}`).toMatch(/^supportedInterfaces: /);
  });

  it('lets a plan force the version per agent, and take a v0.3 card inline', () => {
    expect(PlanAgentSchema.parse({ url: 'http://127.0.0.1:1', a2aVersion: '0.3' })).toMatchObject({ a2aVersion: '0.3' });
    expect(PlanAgentSchema.safeParse({ url: 'http://127.0.0.1:1', a2aVersion: '0.2' }).success).toBe(false);
    const inline = AgentRefSchema.parse({ name: 'deployer', card: v03Card });
    expect(inline.card?.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(['0.3.0', '0.3.0']);
    const bad = AgentRefSchema.safeParse({ name: 'deployer', card: { ...v03Card, version: undefined } });
    expect(bad.success ? [] : bad.error.issues.map((i) => i.path.join('.'))).toEqual(['card.version']);
  });
});

describe('v0.3 answers lifted to v1.0', () => {
  const status = (state: string) => ({ state, message: { kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] }, timestamp: 't' });
  it('maps every state, kind and part', () => {
    const states = ['submitted', 'working', 'input-required', 'auth-required', 'completed', 'canceled', 'failed', 'rejected', 'unknown'];
    const lifted = states.map((s) => {
      const r = parseWith(V03SendResultSchema, { kind: 'task', id: 't', contextId: 'c', status: status(s) });
      if (!r.ok || r.value.kind !== 'task') throw new Error(`state ${s} did not parse`);
      return taskToV1(r.value).status.state;
    });
    expect(lifted).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED', 'TASK_STATE_UNSPECIFIED']);
    const ev = parseWith(V03StreamEventSchema, {
      kind: 'artifact-update', taskId: 't', contextId: 'c', lastChunk: true,
      artifact: { artifactId: 'a', parts: [{ kind: 'file', file: { bytes: 'AAE=', mimeType: 'application/octet-stream', name: 'x.bin' } }, { kind: 'file', file: { uri: 'https://x/y' } }, { kind: 'data', data: { n: 1 } }] },
    });
    if (!ev.ok) throw new Error(ev.problem.detail);
    expect(eventToV1(ev.value)).toEqual({
      artifactUpdate: { taskId: 't', contextId: 'c', lastChunk: true, artifact: { artifactId: 'a', parts: [{ raw: 'AAE=', mediaType: 'application/octet-stream', filename: 'x.bin' }, { url: 'https://x/y' }, { data: { n: 1 } }] } },
    });
    const final = parseWith(V03StreamEventSchema, { kind: 'status-update', taskId: 't', contextId: 'c', final: true, status: status('input-required') });
    if (!final.ok) throw new Error(final.problem.detail);
    expect(eventToV1(final.value)).toEqual({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: 't', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } } } });
  });

  it('names what is wrong with a bad v0.3 frame', () => {
    const r = parseWith(V03StreamEventSchema, { kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'INPUT_REQUIRED' } });
    expect(r.ok ? '' : `${r.problem.path}: ${r.problem.detail}`).toMatch(/^status\.state: /);
    expect(parseWith(V03StreamEventSchema, { task: {} }).ok).toBe(false);
  });

  it('reads a push notification of either version', () => {
    const pushed = parsePushNotification({ kind: 'task', id: 't', contextId: 'c', status: status('completed') });
    expect(pushed.ok && pushed.value).toMatchObject({ task: { id: 't', status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(parsePushNotification({ task: { id: 't', status: { state: 'TASK_STATE_WORKING' } } }).ok).toBe(true);
    expect(parsePushNotification({ kind: 'task', id: 't' }).ok).toBe(false);
  });
});

describe('v1.0 requests lowered to v0.3', () => {
  it('names each operation by its v0.3 method; ListTasks has none', () => {
    expect(['SendMessage', 'SendStreamingMessage', 'GetTask', 'CancelTask', 'SubscribeToTask'].map((op) => methodOf(op as never))).toEqual([
      'message/send', 'message/stream', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe',
    ]);
    expect(methodOf('ListTasks')).toBeUndefined();
  });

  it('sends the message kind-tagged with blocking spelled out and the push config nested', () => {
    const down = paramsToV03('SendMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', taskId: 't', parts: [{ text: 'x' }, { data: [1, 2] }, { raw: 'AA==', mediaType: 'a/b' }] },
      configuration: { historyLength: 0, taskPushNotificationConfig: { url: 'https://h/p', authentication: { scheme: 'Bearer', credentials: 'c' } } },
    });
    expect(down).toEqual({
      message: { kind: 'message', messageId: 'm', role: 'user', taskId: 't', parts: [{ kind: 'text', text: 'x' }, { kind: 'data', data: { value: [1, 2] } }, { kind: 'file', file: { bytes: 'AA==', mimeType: 'a/b' } }] },
      configuration: { historyLength: 0, blocking: true, pushNotificationConfig: { url: 'https://h/p', authentication: { schemes: ['Bearer'], credentials: 'c' } } },
    });
    expect(paramsToV03('CreateTaskPushNotificationConfig', { taskId: 't', url: 'u' })).toEqual({ taskId: 't', pushNotificationConfig: { id: 't', url: 'u' } });
    expect(paramsToV03('DeleteTaskPushNotificationConfig', { taskId: 't', id: 'p' })).toEqual({ id: 't', pushNotificationConfigId: 'p' });
  });
});

describe("the HTTP+JSON binding's proto JSON", () => {
  it('reads tasks, messages and events, with v0.3 proto names, into the JSON-RPC objects', () => {
    const task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_CANCELLED', message: { messageId: 'm', role: 'ROLE_AGENT', content: [{ text: 'bye' }] } } };
    const sent = parseWith(ProtoSendResponseSchema, { task });
    expect(sent.ok && sent.value).toMatchObject({ kind: 'task', status: { state: 'canceled', message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'bye' }] } } });
    const msg = parseWith(ProtoSendResponseSchema, { msg: { messageId: 'm', role: 'ROLE_AGENT', content: [{ data: { data: { a: 1 } } }, { file: { fileWithUri: 'https://x', mimeType: 't/p' } }] } });
    expect(msg.ok && msg.value).toEqual({ kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'data', data: { a: 1 } }, { kind: 'file', file: { uri: 'https://x', mimeType: 't/p' } }] });
    const frame = parseWith(ProtoStreamResponseSchema, { statusUpdate: { taskId: 't', contextId: 'c', final: true, status: { state: 'TASK_STATE_AUTH_REQUIRED' } } });
    expect(frame.ok && frame.value).toEqual({ kind: 'status-update', taskId: 't', contextId: 'c', final: true, status: { state: 'auth-required' } });
    const cfg = parseWith(ProtoTaskPushConfigSchema, { name: 'tasks/t/pushNotificationConfigs/p', pushNotificationConfig: { url: 'u' } });
    expect(cfg.ok && cfg.value).toEqual({ taskId: 't', pushNotificationConfig: { url: 'u', id: 'p' } });
    expect(parseWith(ProtoStreamResponseSchema, { statusUpdate: { taskId: 't', status: { state: 'input-required' } } }).ok).toBe(false);
  });

  it('writes SendMessageRequest with the message as `request` and its parts as `content`', () => {
    const body = sendRequestToProto({ message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }] }, configuration: { blocking: false, pushNotificationConfig: { url: 'u' } } });
    expect(body).toEqual({ request: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] }, configuration: { blocking: false, pushNotification: { url: 'u' } } });
  });

  it("reads a2a-js 0.3's bare error object and a2a-python 0.3's {message} as what they mean", () => {
    const res = (status: number, body: unknown) => ({ status, headers: {}, contentType: 'application/json', text: JSON.stringify(body) });
    expect(errorFromHttpStatus(res(400, { code: -32004, message: 'Agent does not support streaming' }), ctx).name).toBe('UnsupportedOperationError');
    const py = errorFromHttpStatus(res(404, { message: 'Task not found' }), ctx);
    expect(py.message).toMatch(/HTTP 404: Task not found$/);
  });
});
