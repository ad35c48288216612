/**
 * A2A v1.0 wire objects (ProtoJSON: camelCase fields, enums as their full proto names).
 *
 * These zod schemas are the single source of the wire types: every TypeScript type below is
 * `z.infer` of a schema, and every byte received from an agent is parsed with one of them.
 * Objects use zod's default "strip" mode, so fields we do not know (newer spec revisions,
 * vendor extras) are tolerated and dropped, while a missing required field or an unknown enum
 * value fails with the field's path (see validate.ts for how that path is reported).
 *
 * Proto3 JSON omits default values (empty strings, empty lists, zero), so a field the proto
 * marks REQUIRED is only required here when it can never legitimately be a default value.
 */
import { z } from 'zod';
import { REMOTE_ID_MAX } from './remote-text';

const Metadata = z.record(z.string(), z.unknown());

// ---------------------------------------------------------------------------------------------
// Task state and role

export const TaskStateSchema = z.enum([
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
]);
export type TaskState = z.infer<typeof TaskStateSchema>;

/** The four states a task never leaves (spec §4.1.3). */
export const TERMINAL_STATES: readonly TaskState[] = [
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
];
/** States where the agent waits on someone else; they are not terminal, the task resumes. */
export const INTERRUPTED_STATES: readonly TaskState[] = ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'];

export function isTerminal(s: TaskState): boolean {
  return TERMINAL_STATES.includes(s);
}
export function isInterrupted(s: TaskState): boolean {
  return INTERRUPTED_STATES.includes(s);
}

export const RoleSchema = z.enum(['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT']);
export type Role = z.infer<typeof RoleSchema>;

// ---------------------------------------------------------------------------------------------
// Part: a proto `oneof content`. v1.0 has no `kind`; the member name is the discriminator, and
// exactly one member must be present (z.xor fails when none or several match).

const PartCommon = {
  metadata: Metadata.optional(),
  filename: z.string().optional(),
  mediaType: z.string().optional(),
};
export const TextPartSchema = z.object({ text: z.string(), ...PartCommon });
/** Inline file content, base64. */
export const RawPartSchema = z.object({ raw: z.string(), ...PartCommon });
/** File by reference. */
export const UrlPartSchema = z.object({ url: z.string(), ...PartCommon });
/** Structured data: any JSON value (google.protobuf.Value), including null. */
export const DataPartSchema = z.object({ data: z.unknown(), ...PartCommon });
export const PartSchema = z.xor([TextPartSchema, RawPartSchema, UrlPartSchema, DataPartSchema], {
  error: 'a part must have exactly one of text, raw, url, data',
});
export type TextPart = z.infer<typeof TextPartSchema>;
export type RawPart = z.infer<typeof RawPartSchema>;
export type UrlPart = z.infer<typeof UrlPartSchema>;
export type DataPart = z.infer<typeof DataPartSchema>;
export type Part = z.infer<typeof PartSchema>;

// ---------------------------------------------------------------------------------------------
// Message, status, artifact, task

export const MessageSchema = z.object({
  messageId: z.string().min(1),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: RoleSchema,
  parts: z.array(PartSchema).min(1),
  metadata: Metadata.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
export type Message = z.infer<typeof MessageSchema>;

/** An id an agent mints (task, artifact): bounded, since it travels into every message about the task (remote-text.ts). */
const RemoteId = z.string().min(1).max(REMOTE_ID_MAX);

export const TaskStatusSchema = z.object({
  state: TaskStateSchema,
  message: MessageSchema.optional(),
  timestamp: z.string().optional(),
});
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

export const ArtifactSchema = z.object({
  artifactId: RemoteId,
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(PartSchema).min(1),
  metadata: Metadata.optional(),
  extensions: z.array(z.string()).optional(),
});
export type Artifact = z.infer<typeof ArtifactSchema>;

export const TaskSchema = z.object({
  id: RemoteId,
  contextId: z.string().max(REMOTE_ID_MAX).optional(),
  status: TaskStatusSchema,
  artifacts: z.array(ArtifactSchema).optional(),
  history: z.array(MessageSchema).optional(),
  metadata: Metadata.optional(),
  /** dev-1.1 only; kept because it lets a client spot missed events when a server sends it. */
  generation: z.union([z.number(), z.string()]).optional(),
});
export type Task = z.infer<typeof TaskSchema>;

export const TaskStatusUpdateEventSchema = z.object({
  taskId: RemoteId,
  contextId: z.string().max(REMOTE_ID_MAX),
  status: TaskStatusSchema,
  metadata: Metadata.optional(),
  generation: z.union([z.number(), z.string()]).optional(),
});
export type TaskStatusUpdateEvent = z.infer<typeof TaskStatusUpdateEventSchema>;

export const TaskArtifactUpdateEventSchema = z.object({
  taskId: RemoteId,
  contextId: z.string().max(REMOTE_ID_MAX),
  artifact: ArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: Metadata.optional(),
  generation: z.union([z.number(), z.string()]).optional(),
});
export type TaskArtifactUpdateEvent = z.infer<typeof TaskArtifactUpdateEventSchema>;

// ---------------------------------------------------------------------------------------------
// Responses. Also oneofs: the member name says what the frame carries.

export const StreamResponseSchema = z.xor(
  [
    z.object({ task: TaskSchema }),
    z.object({ message: MessageSchema }),
    z.object({ statusUpdate: TaskStatusUpdateEventSchema }),
    z.object({ artifactUpdate: TaskArtifactUpdateEventSchema }),
  ],
  { error: 'expected exactly one of task, message, statusUpdate, artifactUpdate' },
);
/** One stream frame, and also the body of a push notification (spec §3.5.1). */
export type StreamResponse = z.infer<typeof StreamResponseSchema>;

export const SendMessageResponseSchema = z.xor([z.object({ task: TaskSchema }), z.object({ message: MessageSchema })], {
  error: 'expected exactly one of task, message',
});
export type SendMessageResponse = z.infer<typeof SendMessageResponseSchema>;

export const ListTasksResponseSchema = z.object({
  tasks: z.array(TaskSchema).default([]),
  nextPageToken: z.string().default(''),
  pageSize: z.number().int().optional(),
  totalSize: z.number().int().optional(),
});
export type ListTasksResponse = z.infer<typeof ListTasksResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Push notifications

export const AuthenticationInfoSchema = z.object({
  scheme: z.string().min(1),
  credentials: z.string().optional(),
});
export type AuthenticationInfo = z.infer<typeof AuthenticationInfoSchema>;

/** What a client registers: inline in SendMessage, or through CreateTaskPushNotificationConfig. */
export const PushNotificationConfigSchema = z.object({
  url: z.string().min(1),
  token: z.string().optional(),
  authentication: AuthenticationInfoSchema.optional(),
});
export type PushNotificationConfig = z.infer<typeof PushNotificationConfigSchema>;

export const TaskPushNotificationConfigSchema = PushNotificationConfigSchema.extend({
  id: z.string().optional(),
  taskId: z.string().optional(),
  tenant: z.string().optional(),
});
export type TaskPushNotificationConfig = z.infer<typeof TaskPushNotificationConfigSchema>;

export const ListTaskPushNotificationConfigsResponseSchema = z.object({
  configs: z.array(TaskPushNotificationConfigSchema).default([]),
  nextPageToken: z.string().optional(),
});
export type ListTaskPushNotificationConfigsResponse = z.infer<typeof ListTaskPushNotificationConfigsResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Agent card (spec §4.4, §5)

export const AgentInterfaceSchema = z.object({
  url: z.string().min(1),
  /** "JSONRPC" | "GRPC" | "HTTP+JSON" or a custom binding URI. */
  protocolBinding: z.string().min(1),
  protocolVersion: z.string().min(1),
  tenant: z.string().optional(),
});
export type AgentInterface = z.infer<typeof AgentInterfaceSchema>;

export const AgentExtensionSchema = z.object({
  uri: z.string(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: Metadata.optional(),
});
export type AgentExtension = z.infer<typeof AgentExtensionSchema>;

export const AgentCapabilitiesSchema = z.object({
  streaming: z.boolean().optional(),
  pushNotifications: z.boolean().optional(),
  extensions: z.array(AgentExtensionSchema).optional(),
  extendedAgentCard: z.boolean().optional(),
});
export type AgentCapabilities = z.infer<typeof AgentCapabilitiesSchema>;

/** `map<string, StringList>` in the proto, so each scheme maps to `{list: [scopes]}`. */
export const SecurityRequirementSchema = z.object({
  schemes: z.record(z.string(), z.object({ list: z.array(z.string()).optional() })).optional(),
});
export type SecurityRequirement = z.infer<typeof SecurityRequirementSchema>;

// The scheme bodies are kept loose: the client only needs to know which kind of credential an
// agent expects, and rejecting a card over an OAuth flow detail would cut off a usable agent.
const SchemeBody = z.record(z.string(), z.unknown());
export const SecuritySchemeSchema = z.object({
  apiKeySecurityScheme: z
    .object({ location: z.string().optional(), name: z.string().optional(), description: z.string().optional() })
    .optional(),
  httpAuthSecurityScheme: z
    .object({ scheme: z.string().optional(), bearerFormat: z.string().optional(), description: z.string().optional() })
    .optional(),
  oauth2SecurityScheme: SchemeBody.optional(),
  openIdConnectSecurityScheme: SchemeBody.optional(),
  mtlsSecurityScheme: SchemeBody.optional(),
});
export type SecurityScheme = z.infer<typeof SecuritySchemeSchema>;

export const AgentSkillSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()).default([]),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
  securityRequirements: z.array(SecurityRequirementSchema).optional(),
});
export type AgentSkill = z.infer<typeof AgentSkillSchema>;

export const AgentCardSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  /** Ordered by the agent's preference (spec §8.3.1). v0.3 cards (top-level `url`) fail here. */
  supportedInterfaces: z.array(AgentInterfaceSchema).min(1),
  version: z.string(),
  capabilities: AgentCapabilitiesSchema,
  defaultInputModes: z.array(z.string()).default([]),
  defaultOutputModes: z.array(z.string()).default([]),
  skills: z.array(AgentSkillSchema).default([]),
  provider: z.object({ url: z.string().optional(), organization: z.string().optional() }).optional(),
  documentationUrl: z.string().optional(),
  iconUrl: z.string().optional(),
  securitySchemes: z.record(z.string(), SecuritySchemeSchema).optional(),
  securityRequirements: z.array(SecurityRequirementSchema).optional(),
  signatures: z
    .array(z.object({ protected: z.string(), signature: z.string(), header: Metadata.optional() }))
    .optional(),
});
export type AgentCard = z.infer<typeof AgentCardSchema>;

// ---------------------------------------------------------------------------------------------
// Requests (what the client sends; `tenant` is filled in from the chosen interface)

export const SendMessageConfigurationSchema = z.object({
  acceptedOutputModes: z.array(z.string()).optional(),
  /** Registered inline; leave taskId empty, the server knows it (spec §3.2.2). It may carry the client's config id. */
  taskPushNotificationConfig: TaskPushNotificationConfigSchema.optional(),
  historyLength: z.number().int().min(0).optional(),
  /** v1.0 replaced v0.3's `blocking` with this, inverted: blocking is the default. */
  returnImmediately: z.boolean().optional(),
});
export type SendMessageConfiguration = z.infer<typeof SendMessageConfigurationSchema>;

export const SendMessageParamsSchema = z.object({
  message: MessageSchema,
  configuration: SendMessageConfigurationSchema.optional(),
  metadata: Metadata.optional(),
});
export type SendMessageParams = z.infer<typeof SendMessageParamsSchema>;

// ---------------------------------------------------------------------------------------------
// JSON-RPC 2.0 envelopes and error bodies

export const JsonRpcIdSchema = z.union([z.string(), z.number(), z.null()]);
export type JsonRpcId = z.infer<typeof JsonRpcIdSchema>;

export const JsonRpcErrorObjectSchema = z.object({
  code: z.number().int(),
  message: z.string().default(''),
  /** A2A puts an array of `@type`'d objects here (google.rpc.ErrorInfo among them). */
  data: z.unknown().optional(),
});
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>;

export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcIdSchema.optional(),
  method: z.string(),
  params: z.unknown().optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

export const JsonRpcSuccessResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcIdSchema.optional(),
  result: z.unknown(),
});
export const JsonRpcErrorResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcIdSchema.optional(),
  error: JsonRpcErrorObjectSchema,
});
export const JsonRpcResponseSchema = z.xor([JsonRpcSuccessResponseSchema, JsonRpcErrorResponseSchema], {
  error: 'expected a JSON-RPC 2.0 response with exactly one of result, error',
});
export type JsonRpcSuccessResponse = z.infer<typeof JsonRpcSuccessResponseSchema>;
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponseSchema>;
export type JsonRpcResponse = z.infer<typeof JsonRpcResponseSchema>;

export const ErrorInfoSchema = z.object({
  '@type': z.string().optional(),
  reason: z.string(),
  domain: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

/** HTTP+JSON error body: google.rpc.Status wrapped in `error` (spec §11.6). */
export const RestErrorBodySchema = z.object({
  error: z.object({
    code: z.number().int().optional(),
    status: z.string().optional(),
    message: z.string().optional(),
    details: z.array(z.unknown()).optional(),
  }),
});
export type RestErrorBody = z.infer<typeof RestErrorBodySchema>;
