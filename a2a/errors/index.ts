/**
 * The errors an A2A call can fail with: the `A2AError` base, ONE table that says for each error
 * what names it on the wire (JSON-RPC code, ErrorInfo reason, HTTP status), whether a retry helps
 * and what to do about it, the classes generated from that table, and the few hand-written ones
 * with a field or a rule of their own. Reading a peer's error response is errors/decode.ts; a
 * failure that never got an answer is errors/transport.ts. Adding an error is adding a row.
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

// --- The table ---------------------------------------------------------------------------------

/** One row of the table: what names an error on the wire, whether retrying helps, what to do. */
export interface A2AErrorSpec {
  /** The class name, and `err.name` (the planner's Temporal failure type). */
  readonly name: string;
  /** Whether trying the same call again can help. */
  readonly retryable: boolean;
  /** JSON-RPC `error.code` (the class's static `code`). */
  readonly code?: number;
  /** Its google.rpc.ErrorInfo reason (the class's static `errorReason`). */
  readonly reason?: string;
  /** Other ErrorInfo reasons SDKs send for it, each in its own words. */
  readonly sdkReasons?: readonly string[];
  /** google.rpc.Code names (a Status body's `status`) that name it when no ErrorInfo does. */
  readonly rpcStatuses?: readonly string[];
  /** HTTP status naming it in a Status body without a telling reason (never 400: half the errors share it, spec §11.6). */
  readonly httpStatus?: number;
  /** `httpStatus` names it with any body, JSON or not: an auth proxy answers before the agent does. */
  readonly httpStatusAnyBody?: true;
  /** What to do about it, appended to the message of an error decoded from a peer. */
  readonly hint?: string;
}

const SPECS = [
  // A2A errors (spec §5.4). An httpStatus means one thing in both the v1.0.0 and v1.0.1 tables;
  // 409 and 415 are v1.0.0's (v1.0.1 answers both with 400).
  { name: 'TaskNotFoundError', retryable: false, code: -32001, reason: 'TASK_NOT_FOUND', httpStatus: 404 },
  { name: 'TaskNotCancelableError', retryable: false, code: -32002, reason: 'TASK_NOT_CANCELABLE', httpStatus: 409 },
  { name: 'PushNotificationNotSupportedError', retryable: false, code: -32003, reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' },
  { name: 'UnsupportedOperationError', retryable: false, code: -32004, reason: 'UNSUPPORTED_OPERATION' },
  { name: 'ContentTypeNotSupportedError', retryable: false, code: -32005, reason: 'CONTENT_TYPE_NOT_SUPPORTED', httpStatus: 415 },
  { name: 'InvalidAgentResponseError', retryable: false, code: -32006, reason: 'INVALID_AGENT_RESPONSE' },
  { name: 'ExtendedAgentCardNotConfiguredError', retryable: false, code: -32007, reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED' },
  { name: 'ExtensionSupportRequiredError', retryable: false, code: -32008, reason: 'EXTENSION_SUPPORT_REQUIRED' },
  { name: 'VersionNotSupportedError', retryable: false, code: -32009, reason: 'VERSION_NOT_SUPPORTED' },
  // JSON-RPC 2.0's own errors. The spec gives them no reason; SDKs name them each in its own
  // words: a2a-go and a2a-python/js PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS,
  // INTERNAL_ERROR; a2a-java its enum names (JSON_PARSE, INTERNAL).
  { name: 'JsonRpcParseError', retryable: false, code: -32700, sdkReasons: ['PARSE_ERROR', 'JSON_PARSE'] },
  { name: 'InvalidRequestError', retryable: false, code: -32600, sdkReasons: ['INVALID_REQUEST'] },
  { name: 'MethodNotFoundError', retryable: false, code: -32601, sdkReasons: ['METHOD_NOT_FOUND'] },
  { name: 'InvalidParamsError', retryable: false, code: -32602, sdkReasons: ['INVALID_PARAMS'], rpcStatuses: ['INVALID_ARGUMENT'] },
  // -32603 is JSON-RPC's HTTP 500 (spec §3.3.2 groups them as "system" errors): retryable.
  { name: 'InternalError', retryable: true, code: -32603, sdkReasons: ['INTERNAL_ERROR', 'INTERNAL'], rpcStatuses: ['INTERNAL'] },
  // Codes beyond the spec's table that SDKs send. a2a-go refuses ListTasks to callers without a
  // user with -31401 / UNAUTHENTICATED; HTTP+JSON and auth proxies answer 401 and 403.
  {
    name: 'UnauthenticatedError', retryable: false, code: -31401, reason: 'UNAUTHENTICATED', rpcStatuses: ['UNAUTHENTICATED'],
    httpStatus: 401, httpStatusAnyBody: true, hint: "configure this agent's credentials in A2A_AGENT_CREDENTIALS (docs/a2a-client.md)",
  },
  {
    name: 'PermissionDeniedError', retryable: false, code: -31403, reason: 'UNAUTHORIZED', sdkReasons: ['PERMISSION_DENIED'], rpcStatuses: ['PERMISSION_DENIED'],
    httpStatus: 403, httpStatusAnyBody: true, hint: "the configured credentials may not make this call; ask the agent's operator for access",
  },
  // JSON-RPC's implementation-defined server error (a2a-go's ErrServerError): retryable like -32603.
  { name: 'ServerError', retryable: true, code: -32000, reason: 'SERVER_ERROR' },
  // Found by this client; no peer sends them.
  { name: 'AbortedError', retryable: false },
  { name: 'NoCompatibleInterfaceError', retryable: false },
  { name: 'AddressRefusedError', retryable: false },
] as const satisfies readonly A2AErrorSpec[];

/** Every row, in order: errors/decode.ts derives its lookup tables from them. */
export const A2A_ERROR_SPECS: readonly A2AErrorSpec[] = SPECS;

// --- The classes it generates --------------------------------------------------------------------

/** A class generated from a row: `new X(message, details?)`, `err instanceof X`, `err.name === 'X'`. */
export interface A2AErrorClass<N extends string = string> {
  new (message: string, details?: A2AErrorDetails): A2AError & { readonly name: N };
  readonly code?: number;
  readonly errorReason?: string;
  readonly hint?: string;
}

const generated = new Map<string, A2AErrorClass>();

/**
 * A real class named after the row `name` (`constructor.name`, stack traces): its own prototype,
 * so `instanceof` tells the classes apart; `name` as an own field of each error, set after
 * construction like any class field; the row's code, reason and hint as statics. A name that is
 * no row's does not compile.
 */
function errorClass<N extends (typeof SPECS)[number]['name']>(name: N): A2AErrorClass<N> {
  const spec: A2AErrorSpec | undefined = SPECS.find((s) => s.name === name);
  if (spec === undefined) throw new Error(`no row for ${name} in the A2A error table`);
  const { retryable } = spec;
  const cls = class extends A2AError {
    override readonly name: N = name;
    constructor(message: string, details?: A2AErrorDetails) {
      super(message, retryable, details);
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  const statics: { code?: number; errorReason?: string; hint?: string } = {};
  if (spec.code !== undefined) statics.code = spec.code;
  if (spec.reason !== undefined) statics.errorReason = spec.reason;
  if (spec.hint !== undefined) statics.hint = spec.hint;
  const made: A2AErrorClass<N> = Object.assign(cls, statics);
  generated.set(name, made);
  return made;
}

/** The class generated from a row. Throws when a row has no exported class below. */
export function errorClassOf(spec: A2AErrorSpec): A2AErrorClass {
  const cls = generated.get(spec.name);
  if (cls === undefined) throw new Error(`the A2A error table's row ${spec.name} has no class`);
  return cls;
}

export const TaskNotFoundError = errorClass('TaskNotFoundError');
export type TaskNotFoundError = InstanceType<typeof TaskNotFoundError>;
export const TaskNotCancelableError = errorClass('TaskNotCancelableError');
export type TaskNotCancelableError = InstanceType<typeof TaskNotCancelableError>;
export const PushNotificationNotSupportedError = errorClass('PushNotificationNotSupportedError');
export type PushNotificationNotSupportedError = InstanceType<typeof PushNotificationNotSupportedError>;
export const UnsupportedOperationError = errorClass('UnsupportedOperationError');
export type UnsupportedOperationError = InstanceType<typeof UnsupportedOperationError>;
export const ContentTypeNotSupportedError = errorClass('ContentTypeNotSupportedError');
export type ContentTypeNotSupportedError = InstanceType<typeof ContentTypeNotSupportedError>;
/** The peer reported -32006, or we found its response unusable (schema, content type, JSON, size). */
export const InvalidAgentResponseError = errorClass('InvalidAgentResponseError');
export type InvalidAgentResponseError = InstanceType<typeof InvalidAgentResponseError>;
export const ExtendedAgentCardNotConfiguredError = errorClass('ExtendedAgentCardNotConfiguredError');
export type ExtendedAgentCardNotConfiguredError = InstanceType<typeof ExtendedAgentCardNotConfiguredError>;
export const ExtensionSupportRequiredError = errorClass('ExtensionSupportRequiredError');
export type ExtensionSupportRequiredError = InstanceType<typeof ExtensionSupportRequiredError>;
export const VersionNotSupportedError = errorClass('VersionNotSupportedError');
export type VersionNotSupportedError = InstanceType<typeof VersionNotSupportedError>;
export const JsonRpcParseError = errorClass('JsonRpcParseError');
export type JsonRpcParseError = InstanceType<typeof JsonRpcParseError>;
export const InvalidRequestError = errorClass('InvalidRequestError');
export type InvalidRequestError = InstanceType<typeof InvalidRequestError>;
export const MethodNotFoundError = errorClass('MethodNotFoundError');
export type MethodNotFoundError = InstanceType<typeof MethodNotFoundError>;
/** -32602 from the peer; also thrown before sending when our own request fails its schema. */
export const InvalidParamsError = errorClass('InvalidParamsError');
export type InvalidParamsError = InstanceType<typeof InvalidParamsError>;
export const InternalError = errorClass('InternalError');
export type InternalError = InstanceType<typeof InternalError>;
/** The caller is not authenticated. No retry helps until the credentials change. */
export const UnauthenticatedError = errorClass('UnauthenticatedError');
export type UnauthenticatedError = InstanceType<typeof UnauthenticatedError>;
/** The credentials may not do this call. */
export const PermissionDeniedError = errorClass('PermissionDeniedError');
export type PermissionDeniedError = InstanceType<typeof PermissionDeniedError>;
export const ServerError = errorClass('ServerError');
export type ServerError = InstanceType<typeof ServerError>;
/** The caller aborted (AbortSignal) or closed the client. Retrying is the caller's decision. */
export const AbortedError = errorClass('AbortedError');
export type AbortedError = InstanceType<typeof AbortedError>;
/** The card offers no interface this client can use (binding or protocol version). */
export const NoCompatibleInterfaceError = errorClass('NoCompatibleInterfaceError');
export type NoCompatibleInterfaceError = InstanceType<typeof NoCompatibleInterfaceError>;
/**
 * The outbound policy (outbound-policy.ts: link-local, metadata, PLANNER_AGENT_ALLOW) refused the
 * address, at the edge or after DNS: nothing was sent, and no retry helps.
 */
export const AddressRefusedError = errorClass('AddressRefusedError');
export type AddressRefusedError = InstanceType<typeof AddressRefusedError>;

// --- Errors with a field or a rule of their own (hand-written) ----------------------------------

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

// --- Problems this client finds in a call ------------------------------------------------------

export function invalidResponse(ctx: ErrorContext, detail: string, extra?: A2AErrorDetails): InvalidAgentResponseError {
  return new InvalidAgentResponseError(callPrefix(ctx) + cleanText(detail, ctx.secrets, 500), callDetails(ctx, extra));
}

export function invalidParams(ctx: ErrorContext, detail: string): InvalidParamsError {
  return new InvalidParamsError(callPrefix(ctx) + cleanText(detail, ctx.secrets, 500), callDetails(ctx));
}

export function noCompatibleInterface(ctx: ErrorContext, detail: string): NoCompatibleInterfaceError {
  return new NoCompatibleInterfaceError(callPrefix(ctx) + cleanText(detail, ctx.secrets, 500), callDetails(ctx));
}
