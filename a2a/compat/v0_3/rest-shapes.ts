/**
 * v0.3's HTTP+JSON binding carries its proto's JSON, not the JSON-RPC objects: a message's parts
 * are `content`, a message reply is `msg`, states are
 * `TASK_STATE_*` (with v0.3's `TASK_STATE_CANCELLED`), roles `ROLE_*`, a file part is
 * `{file: {fileWithBytes | fileWithUri}}`, a data part `{data: {data}}`, a push config is named
 * `tasks/{id}/pushNotificationConfigs/{configId}`. These schemas read those shapes and turn them
 * into the JSON-RPC objects (schema.ts), so that to-v1.ts is the one lift for both bindings;
 * requests go the other way (a2a-js 0.3.14 and a2a-python 0.3.26 both parse them with the proto).
 */
import { z } from 'zod';
import type { V03Message, V03Part, V03PushConfig, V03TaskPushConfig, V03TaskState } from './schema';

const Metadata = z.record(z.string(), z.unknown());

const PROTO_STATES = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_CANCELLED: 'canceled',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
  TASK_STATE_UNSPECIFIED: 'unknown',
} as const satisfies Record<string, V03TaskState>;

const ProtoStateSchema = z.enum(Object.keys(PROTO_STATES) as [keyof typeof PROTO_STATES, ...(keyof typeof PROTO_STATES)[]]);

const ProtoPartSchema = z
  .object({
    text: z.string().optional(),
    file: z
      .object({ fileWithUri: z.string().optional(), fileWithBytes: z.string().optional(), mimeType: z.string().optional(), name: z.string().optional() })
      .optional(),
    data: z.object({ data: z.unknown() }).optional(),
    metadata: Metadata.optional(),
  })
  .refine((p) => [p.text, p.file, p.data].filter((x) => x !== undefined).length === 1, 'a part must have exactly one of text, file, data')
  .transform((p): V03Part => {
    const metadata = p.metadata ? { metadata: p.metadata } : {};
    if (p.text !== undefined) return { kind: 'text', text: p.text, ...metadata };
    if (p.data !== undefined) return { kind: 'data', data: p.data.data ?? {}, ...metadata };
    const f = p.file!;
    const common = { ...(f.mimeType ? { mimeType: f.mimeType } : {}), ...(f.name ? { name: f.name } : {}) };
    return { kind: 'file', file: f.fileWithBytes !== undefined ? { bytes: f.fileWithBytes, ...common } : { uri: f.fileWithUri ?? '', ...common }, ...metadata };
  });

const ProtoMessageSchema = z
  .object({
    messageId: z.string(),
    contextId: z.string().optional(),
    taskId: z.string().optional(),
    role: z.enum(['ROLE_USER', 'ROLE_AGENT', 'ROLE_UNSPECIFIED']).default('ROLE_UNSPECIFIED'),
    content: z.array(ProtoPartSchema).default([]),
    metadata: Metadata.optional(),
    extensions: z.array(z.string()).optional(),
  })
  .transform((m): V03Message => ({
    kind: 'message',
    messageId: m.messageId,
    role: m.role === 'ROLE_AGENT' ? 'agent' : 'user',
    parts: m.content,
    // Proto JSON drops empty strings, and an empty id means none.
    ...(m.contextId ? { contextId: m.contextId } : {}),
    ...(m.taskId ? { taskId: m.taskId } : {}),
    ...(m.metadata ? { metadata: m.metadata } : {}),
    ...(m.extensions?.length ? { extensions: m.extensions } : {}),
  }));

/** The proto field is `update`, its JSON name `message`; a peer printing field names sends `update`. */
const ProtoStatusSchema = z
  .object({ state: ProtoStateSchema, message: ProtoMessageSchema.optional(), update: ProtoMessageSchema.optional(), timestamp: z.string().optional() })
  .transform((s) => {
    const message = s.message ?? s.update;
    return { state: PROTO_STATES[s.state], ...(message ? { message } : {}), ...(s.timestamp ? { timestamp: s.timestamp } : {}) };
  });

const ProtoArtifactSchema = z.object({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(ProtoPartSchema).default([]),
  metadata: Metadata.optional(),
  extensions: z.array(z.string()).optional(),
});

const ProtoTaskSchema = z
  .object({
    id: z.string(),
    contextId: z.string().default(''),
    status: ProtoStatusSchema,
    artifacts: z.array(ProtoArtifactSchema).optional(),
    history: z.array(ProtoMessageSchema).optional(),
    metadata: Metadata.optional(),
  })
  .transform((t) => ({ kind: 'task' as const, ...t }));

const ProtoStatusUpdateSchema = z
  .object({ taskId: z.string(), contextId: z.string().default(''), status: ProtoStatusSchema, final: z.boolean().optional(), metadata: Metadata.optional() })
  .transform((e) => ({ kind: 'status-update' as const, ...e }));
const ProtoArtifactUpdateSchema = z
  .object({
    taskId: z.string(),
    contextId: z.string().default(''),
    artifact: ProtoArtifactSchema,
    append: z.boolean().optional(),
    lastChunk: z.boolean().optional(),
    metadata: Metadata.optional(),
  })
  .transform((e) => ({ kind: 'artifact-update' as const, ...e }));

/** `{task} | {msg}` → a `message/send` result. */
export const ProtoSendResponseSchema = z
  .xor([z.object({ task: ProtoTaskSchema }), z.object({ msg: ProtoMessageSchema })], { error: 'expected exactly one of task, msg' })
  .transform((r) => ('task' in r ? r.task : r.msg));
/** One stream frame → a `message/stream` event. */
export const ProtoStreamResponseSchema = z
  .xor(
    [z.object({ task: ProtoTaskSchema }), z.object({ msg: ProtoMessageSchema }), z.object({ statusUpdate: ProtoStatusUpdateSchema }), z.object({ artifactUpdate: ProtoArtifactUpdateSchema })],
    { error: 'expected exactly one of task, msg, statusUpdate, artifactUpdate' },
  )
  .transform((r) => ('task' in r ? r.task : 'msg' in r ? r.msg : 'statusUpdate' in r ? r.statusUpdate : r.artifactUpdate));
export const ProtoTaskResponseSchema = ProtoTaskSchema;

const ProtoPushConfigSchema = z.object({
  id: z.string().optional(),
  url: z.string(),
  token: z.string().optional(),
  authentication: z.object({ schemes: z.array(z.string()).default([]), credentials: z.string().optional() }).optional(),
});
/** `{name: 'tasks/{id}/pushNotificationConfigs/{configId}', pushNotificationConfig}` → the JSON-RPC shape. */
export const ProtoTaskPushConfigSchema = z
  .object({ name: z.string(), pushNotificationConfig: ProtoPushConfigSchema })
  .transform((c): V03TaskPushConfig => {
    const [, taskId = '', , configId] = c.name.split('/');
    const p = c.pushNotificationConfig;
    return { taskId, pushNotificationConfig: { ...p, ...(p.id ? {} : configId ? { id: configId } : {}) } };
  });
/** a2a-js answers `{configs: [...]}`, a2a-python a bare list. */
export const ProtoPushConfigListSchema = z.union([
  z.object({ configs: z.array(ProtoTaskPushConfigSchema).default([]) }).transform((l) => l.configs),
  z.array(ProtoTaskPushConfigSchema),
]);

// ---------------------------------------------------------------------------------------------
// Requests, down into proto JSON

function partToProto(p: V03Part): Record<string, unknown> {
  const metadata = p.metadata ? { metadata: p.metadata } : {};
  if (p.kind === 'text') return { text: p.text, ...metadata };
  if (p.kind === 'data') return { data: { data: p.data }, ...metadata };
  const f = p.file;
  const common = { ...(f.mimeType ? { mimeType: f.mimeType } : {}), ...(f.name ? { name: f.name } : {}) };
  return { file: { ...('bytes' in f ? { fileWithBytes: f.bytes } : { fileWithUri: f.uri }), ...common }, ...metadata };
}

export function messageToProto(m: V03Message): Record<string, unknown> {
  return {
    messageId: m.messageId,
    role: m.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
    content: m.parts.map(partToProto),
    ...(m.contextId ? { contextId: m.contextId } : {}),
    ...(m.taskId ? { taskId: m.taskId } : {}),
    ...(m.metadata ? { metadata: m.metadata } : {}),
    ...(m.extensions ? { extensions: m.extensions } : {}),
  };
}

export function pushConfigToProto(c: V03PushConfig): Record<string, unknown> {
  return { ...c };
}

/** `message/send` params → SendMessageRequest. */
export function sendRequestToProto(p: Record<string, unknown>): Record<string, unknown> {
  const c = (p['configuration'] ?? {}) as Record<string, unknown>;
  const { pushNotificationConfig, ...rest } = c;
  const configuration = { ...rest, ...(pushNotificationConfig ? { pushNotification: pushConfigToProto(pushNotificationConfig as V03PushConfig) } : {}) };
  return { request: messageToProto(p['message'] as V03Message), configuration, ...(p['metadata'] ? { metadata: p['metadata'] } : {}) };
}
