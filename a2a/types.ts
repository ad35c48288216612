/** Call options and the contract between the client and its two wire bindings. */
import type { ErrorContext } from './call-context';
import type { TaskState } from './schema';

export type Binding = 'JSONRPC' | 'HTTP+JSON';
export const BINDINGS: readonly Binding[] = ['JSONRPC', 'HTTP+JSON'];

/** The protocol versions this client speaks, in the order it picks them (compat/v0_3/ for 0.3). */
export type A2AVersion = '1.0' | '0.3';
export const A2A_VERSIONS: readonly A2AVersion[] = ['1.0', '0.3'];

export interface CallOptions {
  signal?: AbortSignal;
  /** Deadline for the whole call; TimeoutError('call') when it passes. */
  timeoutMs?: number;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeouts.streamIdleMs` for this stream. 0 disables. */
  idleTimeoutMs?: number;
  /** Overrides the client's `maxFrameBytes` for this stream. */
  maxFrameBytes?: number;
  /** Overrides the client's `maxStreamBytes` for this stream. */
  maxStreamBytes?: number;
}

export interface GetTaskParams {
  id: string;
  historyLength?: number;
}
export interface ListTasksParams {
  contextId?: string;
  status?: TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  includeArtifacts?: boolean;
  statusTimestampAfter?: string;
}
export interface CancelTaskParams {
  id: string;
  metadata?: Record<string, unknown>;
}
export interface SubscribeToTaskParams {
  id: string;
}
export interface CreatePushConfigParams {
  taskId: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}
export interface PushConfigRef {
  taskId: string;
  id: string;
}
export interface ListPushConfigsParams {
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

/** Operation names; they are also the JSON-RPC method names (spec §5.3). */
export type UnaryOperation =
  | 'SendMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';
export type StreamOperation = 'SendStreamingMessage' | 'SubscribeToTask';

/** Request parameters as the client hands them over, without `tenant` (the binding adds it). */
export type RequestParams = { readonly [key: string]: unknown };

export interface WireCallOptions extends CallOptions {
  maxResponseBytes?: number;
}
export interface WireStreamOptions {
  signal?: AbortSignal;
  idleTimeoutMs: number;
  maxFrameBytes: number;
  /** Everything the stream carries, comments included; default DEFAULT_MAX_STREAM_BYTES. */
  maxStreamBytes?: number;
  maxResponseBytes?: number;
  /** A stream that may stay open for days (SubscribeToTask): on a connection of its own (HttpTransport.send). */
  held?: boolean;
}

/**
 * What a binding does: put a request on the wire and hand back the unvalidated result (the
 * JSON-RPC `result`, or the REST body) or, for streams, each unvalidated StreamResponse frame.
 * The client validates with the schemas, so both bindings share one set of checks.
 */
export interface WireBinding {
  readonly binding: Binding;
  readonly url: string;
  call(op: UnaryOperation, params: RequestParams, ctx: ErrorContext, o: WireCallOptions): Promise<unknown>;
  stream(op: StreamOperation, params: RequestParams, ctx: ErrorContext, o: WireStreamOptions): AsyncGenerator<unknown, void, undefined>;
}
