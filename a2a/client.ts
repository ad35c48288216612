/**
 * The A2A client: one interface over both bindings. Bindings only move bytes; this module
 * validates every result and frame against the schemas, so a response that would be accepted
 * on one binding is accepted on the other.
 */
import { fetchAgentCard, selectInterface } from './card';
import { V03Binding } from './compat/v0_3/binding';
import { V03JsonRpcWire } from './compat/v0_3/jsonrpc';
import { V03RestWire } from './compat/v0_3/rest';
import { credentialHeaders, credentialsFor, secretValues, type AgentCredentials } from './credentials';
import { cleanText, type ErrorContext } from './call-context';
import { invalidParams, invalidResponse } from './errors';
import { DEFAULT_MAX_CARD_BYTES, DEFAULT_MAX_STREAM_BYTES, HttpTransport, type HeadersFor, type Timeouts } from './http';
import { JsonRpcBinding } from './jsonrpc';
import { RestBinding } from './rest';
import {
  AgentCardSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  SendMessageParamsSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  type AgentCard,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksResponse,
  type SendMessageParams,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from './schema';
import { DEFAULT_MAX_FRAME_BYTES } from './sse';
import { tracedCall, tracedStream, withTraceContext, type A2ACallInfo } from './tracing';
import type {
  A2AVersion,
  Binding,
  CallOptions,
  CancelTaskParams,
  CreatePushConfigParams,
  GetTaskParams,
  ListPushConfigsParams,
  ListTasksParams,
  PushConfigRef,
  RequestParams,
  StreamOperation,
  StreamOptions,
  SubscribeToTaskParams,
  UnaryOperation,
  WireBinding,
} from './types';
import { describeProblem, parseWith } from './validate';
import type { z } from 'zod';

export interface A2AClient {
  readonly card: AgentCard;
  readonly binding: Binding;
  /** The protocol version spoken to this agent; whatever it is, the calls take and give v1.0 objects. */
  readonly a2aVersion: A2AVersion;
  readonly url: string;
  readonly tenant?: string;
  /** Blocking by default: returns once the task is terminal or interrupted (spec §3.2.2). */
  sendMessage(p: SendMessageParams, o?: CallOptions): Promise<SendMessageResponse>;
  sendStreamingMessage(p: SendMessageParams, o?: StreamOptions): AsyncIterable<StreamResponse>;
  getTask(p: GetTaskParams, o?: CallOptions): Promise<Task>;
  listTasks(p: ListTasksParams, o?: CallOptions): Promise<ListTasksResponse>;
  cancelTask(p: CancelTaskParams, o?: CallOptions): Promise<Task>;
  /** The first frame is the current Task (spec §3.1.6). */
  subscribeToTask(p: SubscribeToTaskParams, o?: StreamOptions): AsyncIterable<StreamResponse>;
  createTaskPushNotificationConfig(p: CreatePushConfigParams, o?: CallOptions): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(p: PushConfigRef, o?: CallOptions): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(p: ListPushConfigsParams, o?: CallOptions): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(p: PushConfigRef, o?: CallOptions): Promise<void>;
  getExtendedAgentCard(o?: CallOptions): Promise<AgentCard>;
  /** Drops the client's connections (after a short grace for in-flight calls). */
  close(): Promise<void>;
}

export interface A2AClientOptions {
  /**
   * The name this agent has in the planner's configuration. Used in error messages and to look
   * up credentials; credentials are never looked up by the card's self-declared name, and the one
   * found is sent only to its configured origins.
   */
  agentName?: string;
  /**
   * Overrides the configured credentials (see credentials.ts); sent, like them, only on requests
   * to one of its origins. `null`: none, whatever the configuration holds for the name.
   */
  credentials?: AgentCredentials | null;
  /** Binding order to try; default: the card's own order. */
  preferredBindings?: Binding[];
  /**
   * The protocol version to speak; default: 1.0 whenever the card offers a usable 1.0 interface,
   * else 0.3. Forcing one the card does not offer fails with NoCompatibleInterfaceError.
   */
  a2aVersion?: A2AVersion;
  timeouts?: Timeouts;
  /** Cap on one stream frame; default 4 MiB. */
  maxFrameBytes?: number;
  /** Cap on a non-streaming response body; default 16 MiB. */
  maxResponseBytes?: number;
  /** Cap on everything one stream carries; default 64 MiB. */
  maxStreamBytes?: number;
  /** Cap on the agent card; default 1 MiB. */
  maxCardBytes?: number;
  /** Share connection pools between clients. A shared transport is not closed by close(). */
  transport?: HttpTransport;
  /** Extension URIs to declare in `A2A-Extensions`. */
  extensions?: string[];
  /**
   * Value of the `A2A-Version` header; default the version spoken ("1.0" or "0.3"). An empty
   * string omits the header, which only a conformance test should want (servers then assume 0.3,
   * spec §3.6.2).
   */
  protocolVersion?: string;
}

/** The headers of every request; the credential's only on requests to its origins (judged per URL). */
function headersFor(o: A2AClientOptions, creds: AgentCredentials | undefined, spoken: A2AVersion = '1.0'): HeadersFor {
  const h: Record<string, string> = { 'user-agent': 'a2a-planner/a2a-client' };
  const version = o.protocolVersion ?? spoken;
  if (version !== '') h['a2a-version'] = version;
  // v0.3 named the extensions header with an X- prefix.
  if (o.extensions && o.extensions.length > 0) h[spoken === '0.3' ? 'x-a2a-extensions' : 'a2a-extensions'] = o.extensions.join(',');
  return (url) => withTraceContext({ ...h, ...credentialHeaders(creds, url) });
}

function resolveCredentials(o: A2AClientOptions): AgentCredentials | undefined {
  if (o.credentials === null) return undefined;
  return o.credentials ?? (o.agentName !== undefined ? credentialsFor(o.agentName) : undefined);
}

function validated<S extends z.ZodType>(schema: S, data: unknown, ctx: ErrorContext, what: string): z.output<S> {
  const r = parseWith(schema, data);
  if (!r.ok) throw invalidResponse(ctx, describeProblem(r.problem, what));
  return r.value;
}

function requireString(ctx: ErrorContext, value: unknown, field: string): void {
  if (typeof value !== 'string' || value === '') throw invalidParams(ctx, `request field ${field}: must be a non-empty string`);
}

class Client implements A2AClient {
  readonly binding: Binding;
  readonly a2aVersion: A2AVersion;
  readonly url: string;
  readonly tenant?: string;
  private readonly wire: WireBinding;
  private readonly agent: string;
  private readonly secrets: readonly string[];

  constructor(
    readonly card: AgentCard,
    private readonly o: A2AClientOptions,
    private readonly transport: HttpTransport,
    private readonly ownsTransport: boolean,
  ) {
    const creds = resolveCredentials(o);
    this.secrets = secretValues(creds);
    this.agent = cleanText(o.agentName ?? card.name, [], 80);
    const ctx = { agent: this.agent, url: card.supportedInterfaces[0]?.url ?? '' };
    const { iface, binding, version } = selectInterface(card, o.preferredBindings, ctx, o.a2aVersion);
    this.binding = binding;
    this.a2aVersion = version;
    this.url = iface.url;
    if (iface.tenant) this.tenant = iface.tenant;
    const headers = headersFor(o, creds, version);
    if (version === '0.3') {
      // v0.3 has no tenants: one mapping at the edge, then the same checks as v1.0 (compat/v0_3/).
      const wire = binding === 'JSONRPC' ? new V03JsonRpcWire(transport, iface.url, headers) : new V03RestWire(transport, iface.url, headers);
      this.wire = new V03Binding(wire, transport.timeouts.headersMs);
    } else {
      this.wire =
        binding === 'JSONRPC'
          ? new JsonRpcBinding(transport, iface.url, this.tenant, headers)
          : new RestBinding(transport, iface.url, this.tenant, headers);
    }
  }

  private ctx(operation: string): ErrorContext {
    return { agent: this.agent, url: this.url, operation, secrets: this.secrets };
  }

  /** What the call's span names (a2a/tracing.ts). */
  private call(method: string, params: RequestParams): A2ACallInfo {
    return { agent: this.agent, method, binding: this.binding, url: this.url, params };
  }

  private async unary<S extends z.ZodType>(op: UnaryOperation, params: RequestParams, schema: S, o: CallOptions = {}): Promise<z.output<S>> {
    const ctx = this.ctx(op);
    return tracedCall(this.call(op, params), async () => {
      const raw = await this.wire.call(op, params, ctx, { ...o, maxResponseBytes: this.o.maxResponseBytes });
      return validated(schema, raw, ctx, 'response');
    });
  }

  /** Lazy: nothing is sent, and nothing throws, until the caller starts iterating. */
  private async *frames(
    op: StreamOperation,
    params: RequestParams,
    o: StreamOptions = {},
    check: () => void = () => undefined,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    check();
    const ctx = this.ctx(op);
    const stream = () => this.wire.stream(op, params, ctx, {
      ...(o.signal ? { signal: o.signal } : {}),
      idleTimeoutMs: o.idleTimeoutMs ?? this.transport.timeouts.streamIdleMs,
      maxFrameBytes: o.maxFrameBytes ?? this.o.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
      maxStreamBytes: o.maxStreamBytes ?? this.o.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES,
      ...(this.o.maxResponseBytes !== undefined ? { maxResponseBytes: this.o.maxResponseBytes } : {}),
      held: op === 'SubscribeToTask',
    });
    yield* tracedStream(this.call(op, params), stream, (frame) => validated(StreamResponseSchema, frame, ctx, 'stream frame'));
  }

  private checkSend(p: SendMessageParams, op: string): void {
    const r = parseWith(SendMessageParamsSchema, p);
    if (!r.ok) throw invalidParams(this.ctx(op), describeProblem(r.problem, 'request'));
  }

  async sendMessage(p: SendMessageParams, o?: CallOptions): Promise<SendMessageResponse> {
    this.checkSend(p, 'SendMessage');
    return this.unary('SendMessage', p, SendMessageResponseSchema, o);
  }

  sendStreamingMessage(p: SendMessageParams, o?: StreamOptions): AsyncIterable<StreamResponse> {
    return this.frames('SendStreamingMessage', p, o, () => this.checkSend(p, 'SendStreamingMessage'));
  }

  async getTask(p: GetTaskParams, o?: CallOptions): Promise<Task> {
    requireString(this.ctx('GetTask'), p.id, 'id');
    return this.unary('GetTask', { id: p.id, historyLength: p.historyLength }, TaskSchema, o);
  }

  async listTasks(p: ListTasksParams = {}, o?: CallOptions): Promise<ListTasksResponse> {
    return this.unary('ListTasks', { ...p }, ListTasksResponseSchema, o);
  }

  async cancelTask(p: CancelTaskParams, o?: CallOptions): Promise<Task> {
    requireString(this.ctx('CancelTask'), p.id, 'id');
    return this.unary('CancelTask', { id: p.id, metadata: p.metadata }, TaskSchema, o);
  }

  subscribeToTask(p: SubscribeToTaskParams, o?: StreamOptions): AsyncIterable<StreamResponse> {
    return this.frames('SubscribeToTask', { id: p.id }, o, () => requireString(this.ctx('SubscribeToTask'), p.id, 'id'));
  }

  async createTaskPushNotificationConfig(p: CreatePushConfigParams, o?: CallOptions): Promise<TaskPushNotificationConfig> {
    requireString(this.ctx('CreateTaskPushNotificationConfig'), p.taskId, 'taskId');
    requireString(this.ctx('CreateTaskPushNotificationConfig'), p.url, 'url');
    const params = { taskId: p.taskId, url: p.url, token: p.token, authentication: p.authentication };
    return this.unary('CreateTaskPushNotificationConfig', params, TaskPushNotificationConfigSchema, o);
  }

  async getTaskPushNotificationConfig(p: PushConfigRef, o?: CallOptions): Promise<TaskPushNotificationConfig> {
    requireString(this.ctx('GetTaskPushNotificationConfig'), p.taskId, 'taskId');
    requireString(this.ctx('GetTaskPushNotificationConfig'), p.id, 'id');
    return this.unary('GetTaskPushNotificationConfig', { taskId: p.taskId, id: p.id }, TaskPushNotificationConfigSchema, o);
  }

  async listTaskPushNotificationConfigs(p: ListPushConfigsParams, o?: CallOptions): Promise<ListTaskPushNotificationConfigsResponse> {
    requireString(this.ctx('ListTaskPushNotificationConfigs'), p.taskId, 'taskId');
    return this.unary('ListTaskPushNotificationConfigs', { ...p }, ListTaskPushNotificationConfigsResponseSchema, o);
  }

  async deleteTaskPushNotificationConfig(p: PushConfigRef, o?: CallOptions): Promise<void> {
    const ctx = this.ctx('DeleteTaskPushNotificationConfig');
    requireString(ctx, p.taskId, 'taskId');
    requireString(ctx, p.id, 'id');
    // JSON-RPC answers `{}` or null, REST 204 or `{}`: anything else is suspicious but harmless.
    const params = { taskId: p.taskId, id: p.id };
    await tracedCall(this.call('DeleteTaskPushNotificationConfig', params), () => this.wire.call('DeleteTaskPushNotificationConfig', params, ctx, { ...o, maxResponseBytes: this.o.maxResponseBytes }));
  }

  async getExtendedAgentCard(o?: CallOptions): Promise<AgentCard> {
    return this.unary('GetExtendedAgentCard', {}, AgentCardSchema, o);
  }

  async close(): Promise<void> {
    if (this.ownsTransport) await this.transport.close();
  }
}

/** A transport for a client that was given none (and so closes it itself). */
function ownTransport(o: A2AClientOptions): HttpTransport {
  return new HttpTransport(o.timeouts ? { timeouts: o.timeouts } : {});
}

/** Fetches and validates `baseUrl`'s agent card. */
export async function resolveAgentCard(baseUrl: string, o: A2AClientOptions & CallOptions = {}): Promise<AgentCard> {
  const transport = o.transport ?? ownTransport(o);
  try {
    const creds = resolveCredentials(o);
    const agent = cleanText(o.agentName ?? hostOf(baseUrl), [], 80);
    return await tracedCall({ agent, method: 'GetAgentCard', url: baseUrl, params: {} }, () =>
      fetchAgentCard(transport, baseUrl, headersFor(o, creds), { agent, secrets: secretValues(creds) }, { signal: o.signal, timeoutMs: o.timeoutMs, maxResponseBytes: o.maxCardBytes ?? DEFAULT_MAX_CARD_BYTES }),
    );
  } finally {
    if (!o.transport) await transport.close();
  }
}

function hostOf(u: string): string {
  try {
    return new URL(u).host;
  } catch {
    return 'unknown';
  }
}

/** A client for an already resolved card. */
export function createA2AClient(card: AgentCard, o: A2AClientOptions = {}): A2AClient {
  const transport = o.transport ?? ownTransport(o);
  try {
    return new Client(card, o, transport, !o.transport);
  } catch (e) {
    if (!o.transport) void transport.close();
    throw e;
  }
}

/** resolveAgentCard + createA2AClient, sharing one connection pool. */
export async function connectA2A(baseUrl: string, o: A2AClientOptions & CallOptions = {}): Promise<A2AClient> {
  const transport = o.transport ?? ownTransport(o);
  try {
    const card = await resolveAgentCard(baseUrl, { ...o, transport });
    return new Client(card, o, transport, !o.transport);
  } catch (e) {
    if (!o.transport) await transport.close();
    throw e;
  }
}
