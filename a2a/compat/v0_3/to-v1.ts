/**
 * v0.3 objects lifted into v1.0 ones: the one way a v0.3 agent's answers enter the planner.
 * Lower-case states become TASK_STATE_*, `kind` tags become the v1.0 oneof member names, file
 * parts become raw/url parts, a status update loses v0.3's `final` flag (v1.0 readers decide by
 * the state and GetTask), a push config's scheme list becomes its first scheme, and a v0.3 card
 * becomes a v1.0 card whose interfaces say protocolVersion 0.3.
 */
import type {
  AgentCard,
  AgentInterface,
  Artifact,
  Message,
  Part,
  SecurityScheme,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
} from '../../schema';
import type { V03AgentCard, V03Artifact, V03Message, V03Part, V03StreamEvent, V03Task, V03TaskPushConfig, V03TaskState } from './schema';

const STATES: Record<V03TaskState, TaskState> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

export function stateToV1(s: V03TaskState): TaskState {
  return STATES[s];
}

/** Copies the members of `from` that are defined (exactOptionalPropertyTypes: no `x: undefined`). */
function defined<T extends object>(from: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(from).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

export function partToV1(p: V03Part): Part {
  const metadata = p.metadata;
  switch (p.kind) {
    case 'text':
      return defined({ text: p.text, metadata });
    case 'data':
      return defined({ data: p.data, metadata });
    case 'file': {
      const common = { metadata, mediaType: p.file.mimeType, filename: p.file.name };
      return 'bytes' in p.file ? defined({ raw: p.file.bytes, ...common }) : defined({ url: p.file.uri, ...common });
    }
  }
}

export function messageToV1(m: V03Message): Message {
  return defined({
    messageId: m.messageId,
    role: m.role === 'agent' ? ('ROLE_AGENT' as const) : ('ROLE_USER' as const),
    parts: m.parts.map(partToV1),
    contextId: m.contextId,
    taskId: m.taskId,
    metadata: m.metadata,
    extensions: m.extensions,
    referenceTaskIds: m.referenceTaskIds,
  });
}

function statusToV1(s: V03Task['status']): TaskStatus {
  return defined({ state: stateToV1(s.state), message: s.message && messageToV1(s.message), timestamp: s.timestamp });
}

export function artifactToV1(a: V03Artifact): Artifact {
  return defined({ artifactId: a.artifactId, name: a.name, description: a.description, parts: a.parts.map(partToV1), metadata: a.metadata, extensions: a.extensions });
}

export function taskToV1(t: V03Task): Task {
  return defined({
    id: t.id,
    contextId: t.contextId,
    status: statusToV1(t.status),
    artifacts: t.artifacts?.map(artifactToV1),
    history: t.history?.map(messageToV1),
    metadata: t.metadata,
  });
}

export function eventToV1(e: V03StreamEvent): StreamResponse {
  switch (e.kind) {
    case 'task':
      return { task: taskToV1(e) };
    case 'message':
      return { message: messageToV1(e) };
    case 'status-update':
      return { statusUpdate: defined({ taskId: e.taskId, contextId: e.contextId, status: statusToV1(e.status), metadata: e.metadata }) };
    case 'artifact-update':
      return {
        artifactUpdate: defined({ taskId: e.taskId, contextId: e.contextId, artifact: artifactToV1(e.artifact), append: e.append, lastChunk: e.lastChunk, metadata: e.metadata }),
      };
  }
}

export function pushConfigToV1(c: V03TaskPushConfig): TaskPushNotificationConfig {
  const p = c.pushNotificationConfig;
  const scheme = p.authentication?.schemes[0];
  return defined({
    id: p.id,
    taskId: c.taskId,
    url: p.url,
    token: p.token,
    authentication: scheme ? defined({ scheme, credentials: p.authentication?.credentials }) : undefined,
  });
}

// ---------------------------------------------------------------------------------------------
// The card

/** v0.3 transport names are v1.0 binding names; anything else is kept as the agent wrote it. */
function iface(url: string, transport: string, version: string): AgentInterface {
  return { url, protocolBinding: transport.toUpperCase(), protocolVersion: version };
}

/** `{type: 'http', scheme: 'bearer'}` → `{httpAuthSecurityScheme: {scheme: 'bearer'}}`, and so on. */
function schemeToV1(s: Record<string, unknown> & { type: string }): SecurityScheme {
  const str = (k: string): string | undefined => (typeof s[k] === 'string' ? (s[k] as string) : undefined);
  const { type, ...rest } = s;
  switch (type) {
    case 'apiKey':
      return { apiKeySecurityScheme: defined({ location: str('in'), name: str('name'), description: str('description') }) };
    case 'http':
      return { httpAuthSecurityScheme: defined({ scheme: str('scheme'), bearerFormat: str('bearerFormat'), description: str('description') }) };
    case 'oauth2':
      return { oauth2SecurityScheme: rest };
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: rest };
    case 'mutualTLS':
      return { mtlsSecurityScheme: rest };
    default:
      return {};
  }
}

const requirements = (list: Record<string, string[]>[] | undefined) =>
  list?.map((r) => ({ schemes: Object.fromEntries(Object.entries(r).map(([k, scopes]) => [k, { list: scopes }])) }));

/**
 * The v0.3 card as a v1.0 card: `url` in `preferredTransport` first, then `additionalInterfaces`
 * (the same URL and transport listed twice is kept once), each at the card's protocolVersion.
 */
export function cardToV1(c: V03AgentCard): AgentCard {
  const version = c.protocolVersion.trim();
  const all = [iface(c.url, c.preferredTransport ?? 'JSONRPC', version), ...(c.additionalInterfaces ?? []).map((i) => iface(i.url, i.transport, version))];
  const seen = new Set<string>();
  const supportedInterfaces = all.filter((i) => {
    const key = `${i.protocolBinding} ${i.url}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return defined({
    name: c.name,
    description: c.description,
    supportedInterfaces,
    version: c.version,
    capabilities: defined({
      streaming: c.capabilities.streaming,
      pushNotifications: c.capabilities.pushNotifications,
      extensions: c.capabilities.extensions,
      extendedAgentCard: c.supportsAuthenticatedExtendedCard,
    }),
    defaultInputModes: c.defaultInputModes,
    defaultOutputModes: c.defaultOutputModes,
    skills: c.skills.map((s) =>
      defined({
        id: s.id,
        name: s.name,
        description: s.description,
        tags: s.tags,
        examples: s.examples,
        inputModes: s.inputModes,
        outputModes: s.outputModes,
        securityRequirements: requirements(s.security),
      }),
    ),
    provider: c.provider,
    documentationUrl: c.documentationUrl,
    iconUrl: c.iconUrl,
    securitySchemes: c.securitySchemes && Object.fromEntries(Object.entries(c.securitySchemes).map(([k, s]) => [k, schemeToV1(s)])),
    securityRequirements: requirements(c.security),
  });
}
