/**
 * Typed errors, and the one place where responses and failures are turned into them.
 *
 * Every failure a caller can see is an `A2AError` subclass whose `name` equals its class name
 * (the planner maps `name` to Temporal failure types) and whose `retryable` flag says whether
 * trying the same call again can help: throttling (408, 429), server trouble (5xx,
 * -32603) and the network can; protocol errors and schema violations cannot.
 *
 * Messages always start with `agent <name> (<url>) <Operation>: ` (the operation when known), so
 * a failure names who failed at which call, and never contain credentials: text that came from
 * the peer is cleaned and scrubbed of the client's secrets before it is used.
 *
 * The codes and ErrorInfo reasons are those the A2A SDKs send (read in their sources: a2a-go v2,
 * a2a-python 1.x, a2a-java, a2a-js), not only the spec's table; see test/a2a/sdk-error-codes.test.ts.
 */
import { callDetails, callPrefix, cleanText, type A2AErrorDetails, type ErrorContext } from '../call-context';

export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'idle' | 'call';

export abstract class A2AError extends Error {
  abstract override readonly name: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly agent?: string;
  readonly url?: string;
  readonly operation?: string;
  readonly jsonRpcCode?: number;
  readonly status?: number;
  readonly reason?: string;

  constructor(message: string, retryable: boolean, d: A2AErrorDetails = {}) {
    super(message, d.cause === undefined ? undefined : { cause: d.cause });
    this.retryable = retryable;
    if (d.retryAfterMs !== undefined) this.retryAfterMs = d.retryAfterMs;
    if (d.agent !== undefined) this.agent = d.agent;
    if (d.url !== undefined) this.url = d.url;
    if (d.operation !== undefined) this.operation = d.operation;
    if (d.jsonRpcCode !== undefined) this.jsonRpcCode = d.jsonRpcCode;
    if (d.status !== undefined) this.status = d.status;
    if (d.reason !== undefined) this.reason = d.reason;
  }
}

// --- A2A errors (spec §5.4). Static `code`/`reason` drive the mapping tables below. ----------

export class TaskNotFoundError extends A2AError {
  static readonly code = -32001;
  static readonly errorReason = 'TASK_NOT_FOUND';
  override readonly name = 'TaskNotFoundError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
export class TaskNotCancelableError extends A2AError {
  static readonly code = -32002;
  static readonly errorReason = 'TASK_NOT_CANCELABLE';
  override readonly name = 'TaskNotCancelableError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
export class PushNotificationNotSupportedError extends A2AError {
  static readonly code = -32003;
  static readonly errorReason = 'PUSH_NOTIFICATION_NOT_SUPPORTED';
  override readonly name = 'PushNotificationNotSupportedError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
export class UnsupportedOperationError extends A2AError {
  static readonly code = -32004;
  static readonly errorReason = 'UNSUPPORTED_OPERATION';
  override readonly name = 'UnsupportedOperationError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
export class ContentTypeNotSupportedError extends A2AError {
  static readonly code = -32005;
  static readonly errorReason = 'CONTENT_TYPE_NOT_SUPPORTED';
  override readonly name = 'ContentTypeNotSupportedError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
/** The peer reported -32006, or we found its response unusable (schema, content type, JSON, size). */
export class InvalidAgentResponseError extends A2AError {
  static readonly code = -32006;
  static readonly errorReason = 'INVALID_AGENT_RESPONSE';
  override readonly name = 'InvalidAgentResponseError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
export class ExtendedAgentCardNotConfiguredError extends A2AError {
  static readonly code = -32007;
  static readonly errorReason = 'EXTENDED_AGENT_CARD_NOT_CONFIGURED';
  override readonly name = 'ExtendedAgentCardNotConfiguredError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
export class ExtensionSupportRequiredError extends A2AError {
  static readonly code = -32008;
  static readonly errorReason = 'EXTENSION_SUPPORT_REQUIRED';
  override readonly name = 'ExtensionSupportRequiredError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
export class VersionNotSupportedError extends A2AError {
  static readonly code = -32009;
  static readonly errorReason = 'VERSION_NOT_SUPPORTED';
  override readonly name = 'VersionNotSupportedError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}

// --- JSON-RPC 2.0 standard errors -----------------------------------------------------------

export class JsonRpcParseError extends A2AError {
  static readonly code = -32700;
  override readonly name = 'JsonRpcParseError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
export class InvalidRequestError extends A2AError {
  static readonly code = -32600;
  override readonly name = 'InvalidRequestError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
export class MethodNotFoundError extends A2AError {
  static readonly code = -32601;
  override readonly name = 'MethodNotFoundError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
/** -32602 from the peer; also thrown before sending when our own request fails its schema. */
export class InvalidParamsError extends A2AError {
  static readonly code = -32602;
  override readonly name = 'InvalidParamsError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
/** -32603 is JSON-RPC's HTTP 500 (spec §3.3.2 groups them as "system" errors): retryable. */
export class InternalError extends A2AError {
  static readonly code = -32603;
  override readonly name = 'InternalError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, true, d); }
}

// --- Codes beyond the spec's table that SDKs send --------------------------------------------

/**
 * The caller is not authenticated: a2a-go's -31401 / reason UNAUTHENTICATED (it refuses ListTasks
 * to callers without a user), HTTP 401 on HTTP+JSON and from auth proxies. No retry helps until
 * the credentials change.
 */
export class UnauthenticatedError extends A2AError {
  static readonly code = -31401;
  static readonly errorReason = 'UNAUTHENTICATED';
  static readonly hint = "configure this agent's credentials in A2A_AGENT_CREDENTIALS (docs/a2a-client.md)";
  override readonly name = 'UnauthenticatedError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
/** The credentials may not do this call: a2a-go's -31403 / reason UNAUTHORIZED, HTTP 403 PERMISSION_DENIED. */
export class PermissionDeniedError extends A2AError {
  static readonly code = -31403;
  static readonly errorReason = 'UNAUTHORIZED';
  static readonly hint = "the configured credentials may not make this call; ask the agent's operator for access";
  override readonly name = 'PermissionDeniedError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
/** JSON-RPC's implementation-defined server error, -32000 (a2a-go's ErrServerError, reason SERVER_ERROR): retryable like -32603. */
export class ServerError extends A2AError {
  static readonly code = -32000;
  static readonly errorReason = 'SERVER_ERROR';
  override readonly name = 'ServerError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, true, d); }
}

// --- HTTP, transport and local errors -------------------------------------------------------

/** A status that maps to no A2A error. Retryable for 408, 429 and 5xx (except 501 and 505). */
export class HttpStatusError extends A2AError {
  override readonly name = 'HttpStatusError';
  override readonly status: number;
  constructor(m: string, status: number, d?: A2AErrorDetails) {
    super(m, retryableStatus(status), { ...d, status });
    this.status = status;
  }
}
/** Refused, reset, DNS failure, connection closed mid-response. Always retryable. */
export class ConnectionError extends A2AError {
  override readonly name = 'ConnectionError';
  /** Node/undici error code, e.g. ECONNREFUSED, UND_ERR_SOCKET. */
  readonly errno?: string;
  constructor(m: string, d?: A2AErrorDetails) {
    super(m, true, d);
    if (d?.errno !== undefined) this.errno = d.errno;
  }
}
export class TimeoutError extends A2AError {
  override readonly name = 'TimeoutError';
  readonly phase: TimeoutPhase;
  constructor(m: string, phase: TimeoutPhase, d?: A2AErrorDetails) {
    super(m, true, d);
    this.phase = phase;
  }
}
/** The caller aborted (AbortSignal) or closed the client. Retrying is the caller's decision. */
export class AbortedError extends A2AError {
  override readonly name = 'AbortedError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
/** The card offers no interface this client can use (binding or protocol version). */
export class NoCompatibleInterfaceError extends A2AError {
  override readonly name = 'NoCompatibleInterfaceError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
/**
 * The peer sent an error we have no class for (custom JSON-RPC code, unknown reason). Retryable
 * only when it came with a retryable HTTP status (a 503 with a reason nobody knows is still a 503).
 */
export class UnknownRemoteError extends A2AError {
  override readonly name = 'UnknownRemoteError';
  constructor(m: string, d?: A2AErrorDetails) {
    super(m, d?.status !== undefined && d.status >= 400 && retryableStatus(d.status), d);
  }
}
/**
 * The outbound policy (outbound-policy.ts: link-local, metadata, PLANNER_AGENT_ALLOW) refused the
 * address, at the edge or after DNS: nothing was sent, and no retry helps.
 */
export class AddressRefusedError extends A2AError {
  override readonly name = 'AddressRefusedError';
  constructor(m: string, d?: A2AErrorDetails) { super(m, false, d); }
}
/** A2A_AGENT_CREDENTIALS is malformed. The message names the agent and field, never the value. */
export class CredentialsConfigError extends A2AError {
  override readonly name = 'CredentialsConfigError';
  constructor(m: string) { super(m, false); }
}

export function isRetryable(e: unknown): boolean {
  return e instanceof A2AError && e.retryable;
}

function retryableStatus(status: number): boolean {
  if (status === 408 || status === 429) return true;
  return status >= 500 && status !== 501 && status !== 505;
}

// --- Local problems ---------------------------------------------------------------------------

export function invalidResponse(ctx: ErrorContext, detail: string, extra?: A2AErrorDetails): InvalidAgentResponseError {
  return new InvalidAgentResponseError(callPrefix(ctx) + cleanText(detail, ctx.secrets, 500), callDetails(ctx, extra));
}

export function invalidParams(ctx: ErrorContext, detail: string): InvalidParamsError {
  return new InvalidParamsError(callPrefix(ctx) + cleanText(detail, ctx.secrets, 500), callDetails(ctx));
}

export function noCompatibleInterface(ctx: ErrorContext, detail: string): NoCompatibleInterfaceError {
  return new NoCompatibleInterfaceError(callPrefix(ctx) + cleanText(detail, ctx.secrets, 500), callDetails(ctx));
}
