/**
 * v1.0 requests lowered to v0.3 ones: the operation's JSON-RPC method name and its params in
 * v0.3's shape (`kind` tags, roles `user`/`agent`, `blocking` instead of `returnImmediately`,
 * a push config nested under `pushNotificationConfig` with a list of schemes). The client has
 * already checked the v1.0 request against its schema; what v0.3 cannot say is refused here,
 * before anything is sent (ListTasks: v0.3 has no such method).
 */
import type { Message, Part, SendMessageParams } from '../../schema';
import type { RequestParams, StreamOperation, UnaryOperation } from '../../types';
import type { V03Message, V03Part, V03PushConfig } from './schema';

export type V03Method =
  | 'message/send'
  | 'message/stream'
  | 'tasks/get'
  | 'tasks/cancel'
  | 'tasks/resubscribe'
  | 'tasks/pushNotificationConfig/set'
  | 'tasks/pushNotificationConfig/get'
  | 'tasks/pushNotificationConfig/list'
  | 'tasks/pushNotificationConfig/delete'
  | 'agent/getAuthenticatedExtendedCard';
export type V03StreamMethod = 'message/stream' | 'tasks/resubscribe';

const METHODS: Record<UnaryOperation | StreamOperation, V03Method | undefined> = {
  SendMessage: 'message/send',
  SendStreamingMessage: 'message/stream',
  GetTask: 'tasks/get',
  CancelTask: 'tasks/cancel',
  SubscribeToTask: 'tasks/resubscribe',
  CreateTaskPushNotificationConfig: 'tasks/pushNotificationConfig/set',
  GetTaskPushNotificationConfig: 'tasks/pushNotificationConfig/get',
  ListTaskPushNotificationConfigs: 'tasks/pushNotificationConfig/list',
  DeleteTaskPushNotificationConfig: 'tasks/pushNotificationConfig/delete',
  GetExtendedAgentCard: 'agent/getAuthenticatedExtendedCard',
  // v0.3 has no way to list tasks.
  ListTasks: undefined,
};

/** The v0.3 method of a v1.0 operation; undefined when v0.3 has none. */
export function methodOf(op: UnaryOperation | StreamOperation): V03Method | undefined {
  return METHODS[op];
}

/** Copies the members of `from` that are defined. */
function defined<T extends object>(from: T): Partial<T> {
  return Object.fromEntries(Object.entries(from).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * A v1.0 data part may hold any JSON value; v0.3's holds an object. Anything else travels as
 * `{value: …}`, which the agent sees as data either way.
 */
function dataOf(data: unknown): Record<string, unknown> {
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : { value: data };
}

export function partToV03(p: Part): V03Part {
  const metadata = p.metadata;
  if ('text' in p) return { kind: 'text', text: p.text, ...defined({ metadata }) };
  if ('data' in p) return { kind: 'data', data: dataOf(p.data), ...defined({ metadata }) };
  const file = defined({ mimeType: p.mediaType, name: p.filename });
  if ('raw' in p) return { kind: 'file', file: { bytes: p.raw, ...file }, ...defined({ metadata }) };
  return { kind: 'file', file: { uri: p.url, ...file }, ...defined({ metadata }) };
}

export function messageToV03(m: Message): V03Message {
  return {
    kind: 'message',
    messageId: m.messageId,
    role: m.role === 'ROLE_AGENT' ? 'agent' : 'user',
    parts: m.parts.map(partToV03),
    ...defined({ contextId: m.contextId, taskId: m.taskId, metadata: m.metadata, extensions: m.extensions, referenceTaskIds: m.referenceTaskIds }),
  };
}

function pushConfigToV03(c: { id?: string | undefined; url: string; token?: string | undefined; authentication?: { scheme: string; credentials?: string | undefined } | undefined }): V03PushConfig {
  const auth = c.authentication;
  return {
    url: c.url,
    ...defined({ id: c.id, token: c.token, authentication: auth ? { schemes: [auth.scheme], ...defined({ credentials: auth.credentials }) } : undefined }),
  };
}

/** v1.0 blocks unless `returnImmediately`; v0.3 says `blocking`, sent always since SDKs differ on its default. */
function sendParams(p: SendMessageParams): Record<string, unknown> {
  const c = p.configuration;
  const configuration = defined({
    acceptedOutputModes: c?.acceptedOutputModes,
    historyLength: c?.historyLength,
    pushNotificationConfig: c?.taskPushNotificationConfig ? pushConfigToV03(c.taskPushNotificationConfig) : undefined,
    blocking: c?.returnImmediately !== true,
  });
  return { message: messageToV03(p.message), configuration, ...defined({ metadata: p.metadata }) };
}

const str = (p: RequestParams, key: string): string => p[key] as string;

/** The params of `op` in v0.3's shape (the client checked the v1.0 ones). */
export function paramsToV03(op: UnaryOperation | StreamOperation, p: RequestParams): Record<string, unknown> {
  switch (op) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return sendParams(p as unknown as SendMessageParams);
    case 'GetTask':
      return defined({ id: str(p, 'id'), historyLength: p['historyLength'] });
    case 'CancelTask':
      return defined({ id: str(p, 'id'), metadata: p['metadata'] });
    case 'SubscribeToTask':
      return { id: str(p, 'id') };
    case 'CreateTaskPushNotificationConfig': {
      // The id both SDKs give a config that comes without one; a2a-python 0.3's HTTP+JSON gives it none.
      const config = { id: str(p, 'taskId'), ...(p as unknown as Parameters<typeof pushConfigToV03>[0]) };
      return { taskId: str(p, 'taskId'), pushNotificationConfig: pushConfigToV03(config) };
    }
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { id: str(p, 'taskId'), pushNotificationConfigId: str(p, 'id') };
    case 'ListTaskPushNotificationConfigs':
      return { id: str(p, 'taskId') };
    case 'GetExtendedAgentCard':
    case 'ListTasks':
      return {};
  }
}
