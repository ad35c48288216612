/**
 * A2A v0.3 wire objects as its JSON-RPC binding carries them (the spec's `a2a.json` schema):
 * `kind`-tagged parts, messages, tasks and events, lower-case states (`input-required`), roles
 * `user`/`agent`, the v0.3 agent card (top-level `url`, `preferredTransport`,
 * `additionalInterfaces`, card-level `protocolVersion`). Every byte a v0.3 agent sends is parsed
 * with one of these before to-v1.ts lifts it into the v1.0 objects the rest of the planner uses;
 * nothing outside `a2a/compat/v0_3/` sees these shapes.
 *
 * Objects strip unknown fields, like ../../schema.ts; a missing required field or an unknown
 * state fails with its path. The HTTP+JSON binding of v0.3 carries other shapes (its proto's
 * JSON), kept in rest-schema.ts.
 */
import { z } from 'zod';
import { REMOTE_ID_MAX } from '../../remote-text';
import { ArtifactSchema } from '../../schema';

const Metadata = z.record(z.string(), z.unknown());
const RemoteId = z.string().min(1).max(REMOTE_ID_MAX);

export const V03TaskStateSchema = z.enum([
  'submitted',
  'working',
  'input-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'auth-required',
  'unknown',
]);
export type V03TaskState = z.infer<typeof V03TaskStateSchema>;

const PartCommon = { metadata: Metadata.optional() };
const FileCommon = { name: z.string().optional(), mimeType: z.string().optional() };
export const V03PartSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string(), ...PartCommon }),
  z.object({
    kind: z.literal('file'),
    file: z.xor([z.object({ bytes: z.string(), ...FileCommon }), z.object({ uri: z.string(), ...FileCommon })], {
      error: 'a file must have exactly one of bytes, uri',
    }),
    ...PartCommon,
  }),
  z.object({ kind: z.literal('data'), data: z.unknown(), ...PartCommon }),
]);
export type V03Part = z.infer<typeof V03PartSchema>;

export const V03MessageSchema = z.object({
  kind: z.literal('message'),
  messageId: z.string().min(1),
  role: z.enum(['user', 'agent']),
  parts: z.array(V03PartSchema).min(1),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  metadata: Metadata.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
export type V03Message = z.infer<typeof V03MessageSchema>;

export const V03TaskStatusSchema = z.object({
  state: V03TaskStateSchema,
  message: V03MessageSchema.optional(),
  timestamp: z.string().optional(),
});

/** v1.0's artifact with v0.3's kind-tagged parts: the rest of it is the same on the wire. */
export const V03ArtifactSchema = ArtifactSchema.extend({ parts: z.array(V03PartSchema).min(1) });
export type V03Artifact = z.infer<typeof V03ArtifactSchema>;

export const V03TaskSchema = z.object({
  kind: z.literal('task'),
  id: RemoteId,
  contextId: z.string().max(REMOTE_ID_MAX),
  status: V03TaskStatusSchema,
  artifacts: z.array(V03ArtifactSchema).optional(),
  history: z.array(V03MessageSchema).optional(),
  metadata: Metadata.optional(),
});
export type V03Task = z.infer<typeof V03TaskSchema>;

export const V03StatusUpdateSchema = z.object({
  kind: z.literal('status-update'),
  taskId: RemoteId,
  contextId: z.string().max(REMOTE_ID_MAX),
  status: V03TaskStatusSchema,
  /** v0.3's end-of-stream marker; v1.0 has none (the stream's close and GetTask say it). */
  final: z.boolean().optional(),
  metadata: Metadata.optional(),
});
export const V03ArtifactUpdateSchema = z.object({
  kind: z.literal('artifact-update'),
  taskId: RemoteId,
  contextId: z.string().max(REMOTE_ID_MAX),
  artifact: V03ArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: Metadata.optional(),
});

/** A `message/send` result. */
export const V03SendResultSchema = z.discriminatedUnion('kind', [V03TaskSchema, V03MessageSchema], {
  error: "expected a result with kind 'task' or 'message'",
});
/** One `message/stream` or `tasks/resubscribe` event. */
export const V03StreamEventSchema = z.discriminatedUnion('kind', [V03TaskSchema, V03MessageSchema, V03StatusUpdateSchema, V03ArtifactUpdateSchema], {
  error: "expected an event with kind 'task', 'message', 'status-update' or 'artifact-update'",
});
export type V03StreamEvent = z.infer<typeof V03StreamEventSchema>;

// ---------------------------------------------------------------------------------------------
// Push notification configs

/** v0.3 lists schemes; v1.0 names one. */
export const V03PushAuthSchema = z.object({ schemes: z.array(z.string()), credentials: z.string().optional() });
export const V03PushConfigSchema = z.object({
  id: z.string().optional(),
  url: z.string().min(1),
  token: z.string().optional(),
  authentication: V03PushAuthSchema.optional(),
});
export type V03PushConfig = z.infer<typeof V03PushConfigSchema>;
export const V03TaskPushConfigSchema = z.object({ taskId: z.string().min(1), pushNotificationConfig: V03PushConfigSchema });
export type V03TaskPushConfig = z.infer<typeof V03TaskPushConfigSchema>;
export const V03TaskPushConfigListSchema = z.array(V03TaskPushConfigSchema);

// ---------------------------------------------------------------------------------------------
// Agent card

export const V03_TRANSPORTS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

/** OpenAPI-style security schemes, tagged by `type`; kept loose like the v1.0 card's. */
const V03SecuritySchemeSchema = z.looseObject({ type: z.string() });

export const V03AgentCardSchema = z.object({
  /** The card's one protocol version, e.g. "0.3.0". */
  protocolVersion: z.string().min(1),
  name: z.string().min(1),
  description: z.string(),
  /** The preferred endpoint, spoken in `preferredTransport` (JSONRPC when absent). */
  url: z.string().min(1),
  preferredTransport: z.string().optional(),
  additionalInterfaces: z.array(z.object({ url: z.string().min(1), transport: z.string().min(1) })).optional(),
  version: z.string(),
  capabilities: z.object({
    streaming: z.boolean().optional(),
    pushNotifications: z.boolean().optional(),
    extensions: z.array(z.object({ uri: z.string(), description: z.string().optional(), required: z.boolean().optional(), params: Metadata.optional() })).optional(),
  }),
  defaultInputModes: z.array(z.string()).default([]),
  defaultOutputModes: z.array(z.string()).default([]),
  skills: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string(),
        description: z.string(),
        tags: z.array(z.string()).default([]),
        examples: z.array(z.string()).optional(),
        inputModes: z.array(z.string()).optional(),
        outputModes: z.array(z.string()).optional(),
        security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
      }),
    )
    .default([]),
  provider: z.object({ url: z.string().optional(), organization: z.string().optional() }).optional(),
  documentationUrl: z.string().optional(),
  iconUrl: z.string().optional(),
  securitySchemes: z.record(z.string(), V03SecuritySchemeSchema).optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  supportsAuthenticatedExtendedCard: z.boolean().optional(),
});
export type V03AgentCard = z.infer<typeof V03AgentCardSchema>;
