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
import { JsonRpcErrorObjectSchema, RestErrorBodySchema, type JsonRpcErrorObject } from '../schema';
import { callDetails, callPrefix, cleanText, displayUrl, parseRetryAfter, type A2AErrorDetails, type ErrorContext } from '../call-context';

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

// --- Mapping tables ---------------------------------------------------------------------------

type RemoteErrorClass = new (m: string, d?: A2AErrorDetails) => A2AError;

const A2A_CLASSES = [
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
] as const;

const SDK_CLASSES = [UnauthenticatedError, PermissionDeniedError, ServerError] as const;

const BY_CODE = new Map<number, RemoteErrorClass>([
  ...[...A2A_CLASSES, ...SDK_CLASSES].map((c): [number, RemoteErrorClass] => [c.code, c]),
  [JsonRpcParseError.code, JsonRpcParseError],
  [InvalidRequestError.code, InvalidRequestError],
  [MethodNotFoundError.code, MethodNotFoundError],
  [InvalidParamsError.code, InvalidParamsError],
  [InternalError.code, InternalError],
]);
/**
 * ErrorInfo reasons. Besides the spec's A2A reasons, SDKs name the generic errors too, each in
 * its own words: a2a-go and a2a-python/js use PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND,
 * INVALID_PARAMS, INTERNAL_ERROR; a2a-java uses its enum names (JSON_PARSE, INTERNAL).
 */
const BY_REASON = new Map<string, RemoteErrorClass>([
  ...[...A2A_CLASSES, ...SDK_CLASSES].map((c): [string, RemoteErrorClass] => [c.errorReason, c]),
  ['PERMISSION_DENIED', PermissionDeniedError],
  ['PARSE_ERROR', JsonRpcParseError],
  ['JSON_PARSE', JsonRpcParseError],
  ['INVALID_REQUEST', InvalidRequestError],
  ['METHOD_NOT_FOUND', MethodNotFoundError],
  ['INVALID_PARAMS', InvalidParamsError],
  ['INTERNAL_ERROR', InternalError],
  ['INTERNAL', InternalError],
]);
/** Reasons that say nothing (a2a-python's UNKNOWN_ERROR for an unmapped error): the status decides. */
const EMPTY_REASONS = new Set(['UNKNOWN_ERROR']);
/** Statuses that mean the same with any body, JSON or not: an auth proxy answers before the agent does. */
const AUTH_BY_STATUS = new Map<number, RemoteErrorClass>([
  [401, UnauthenticatedError],
  [403, PermissionDeniedError],
]);

/**
 * REST statuses that identify an A2A error without an ErrorInfo. Only statuses that mean one
 * thing in both the v1.0.0 and v1.0.1 tables are here; 400 is shared by half the errors, so a
 * bare 400 is never guessed (spec §11.6).
 */
const BY_STATUS_WITHOUT_REASON = new Map<number, RemoteErrorClass>([
  ...AUTH_BY_STATUS,
  [404, TaskNotFoundError],
  [409, TaskNotCancelableError], // v1.0.0
  [415, ContentTypeNotSupportedError], // v1.0.0
]);
/** google.rpc.Code names that identify a generic error when no ErrorInfo is given. */
const BY_RPC_STATUS = new Map<string, RemoteErrorClass>([
  ['INVALID_ARGUMENT', InvalidParamsError],
  ['INTERNAL', InternalError],
  ['UNAUTHENTICATED', UnauthenticatedError],
  ['PERMISSION_DENIED', PermissionDeniedError],
]);

// --- SDK quirks: what an SDK sends that means something else (one place, each named) ----------

/**
 * A message to a task in a terminal state must be refused with UnsupportedOperationError (spec
 * §3.1.1, TCK CORE-SEND-002). a2a-go v2 (v2.4.0, v2.5.0; a2aproject/a2a-go#438, open) sends
 * InvalidParams instead (-32602 / HTTP 400 INVALID_PARAMS, "task in a terminal state
 * \"TASK_STATE_CANCELED\""), as did a2a-python before 1.3 (a2aproject/a2a-python#1205, "Task … is
 * in terminal state"). Read as what it means, a refused answer to a task that ended meanwhile
 * leads callers to GetTask (activities/send-message.ts) on every SDK instead of failing the run.
 * Seen in test/interop.test.ts ("a task that ends at the agent while a human thinks", go).
 */
const TERMINAL_TASK_REFUSAL = /\btask\b.*\bin (a )?terminal state\b/i;

function readQuirks(cls: RemoteErrorClass | undefined, message: string): RemoteErrorClass | undefined {
  if (cls === InvalidParamsError && TERMINAL_TASK_REFUSAL.test(message)) return UnsupportedOperationError;
  return cls;
}

/** What to do about it, for the classes that have advice. */
function hintFor(cls: RemoteErrorClass | undefined): string {
  const hint = (cls as { hint?: unknown } | undefined)?.hint;
  return typeof hint === 'string' ? ` (${hint})` : '';
}

// --- Helpers ---------------------------------------------------------------------------------

/** Finds google.rpc.ErrorInfo.reason in a JSON-RPC `error.data` or a Status `details` list. */
function errorInfoReason(data: unknown): string | undefined {
  const items = Array.isArray(data) ? data : data !== null && typeof data === 'object' ? [data] : [];
  for (const item of items) {
    if (item === null || typeof item !== 'object') continue;
    const rec = item as Record<string, unknown>;
    const type = rec['@type'];
    const reason = rec['reason'];
    if (typeof reason !== 'string' || reason === '') continue;
    if (type === undefined || (typeof type === 'string' && type.endsWith('google.rpc.ErrorInfo'))) return reason;
  }
  return undefined;
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

// --- Remote errors ----------------------------------------------------------------------------

/** A JSON-RPC `error` object (from a unary response or a stream frame). */
export function errorFromJsonRpc(
  err: JsonRpcErrorObject,
  ctx: ErrorContext,
  http: { status?: number; retryAfterMs?: number } = {},
): A2AError {
  const reason = errorInfoReason(err.data);
  const cls = readQuirks(BY_CODE.get(err.code) ?? (reason !== undefined ? BY_REASON.get(reason) : undefined), err.message);
  const label = cls ? '' : 'unrecognized error ';
  const text = `${label}${err.code}${reason ? ` ${reason}` : ''}: ${cleanText(err.message, ctx.secrets)}${hintFor(cls)}`;
  const d = callDetails(ctx, { jsonRpcCode: err.code, ...http });
  if (reason !== undefined) d.reason = reason;
  return new (cls ?? UnknownRemoteError)(callPrefix(ctx) + text, d);
}

export interface HttpErrorResponse {
  status: number;
  statusText?: string;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  /** The body, already read (bounded) and decoded. */
  text: string;
}

/** application/json, application/a2a+json, application/problem+json, … */
export function isJsonContentType(ct: string): boolean {
  return /^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(ct.trim());
}

/**
 * A response whose HTTP status is not 2xx, for either binding. A JSON-RPC error envelope or a
 * google.rpc.Status body decides the class; otherwise the status does.
 */
export function errorFromHttpStatus(res: HttpErrorResponse, ctx: ErrorContext): A2AError {
  const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
  const http: { status: number; retryAfterMs?: number } = { status: res.status };
  if (retryAfterMs !== undefined) http.retryAfterMs = retryAfterMs;

  let body: unknown;
  if (isJsonContentType(res.contentType) || /^\s*[{[]/.test(res.text)) {
    try {
      body = JSON.parse(res.text);
    } catch {
      body = undefined;
    }
  }
  if (body !== null && typeof body === 'object') {
    const rec = body as Record<string, unknown>;
    // A JSON-RPC peer that also uses HTTP statuses for errors.
    if (rec['jsonrpc'] === '2.0' && rec['error'] !== undefined) {
      const e = JsonRpcErrorObjectSchema.safeParse(rec['error']);
      if (e.success) return errorFromJsonRpc(e.data, ctx, http);
    }
    const status = RestErrorBodySchema.safeParse(body);
    if (status.success) return errorFromRestStatus(status.data.error, res.status, ctx, http);
    // application/problem+json (spec examples §6.4/§6.5): no reason, so the status decides.
    if (typeof rec['title'] === 'string' || typeof rec['detail'] === 'string') {
      const text = [rec['title'], rec['detail']].filter((x) => typeof x === 'string').join(': ');
      return statusError(res, ctx, http, cleanText(text, ctx.secrets));
    }
  }
  const snippet = res.text.trim() === '' ? '' : cleanText(res.text, ctx.secrets, 120);
  return statusError(res, ctx, http, snippet);
}

function statusError(
  res: HttpErrorResponse,
  ctx: ErrorContext,
  http: { status: number; retryAfterMs?: number },
  text: string,
): A2AError {
  const after = http.retryAfterMs !== undefined ? ` (retry after ${http.retryAfterMs} ms)` : '';
  const st = res.statusText ? ` ${cleanText(res.statusText, ctx.secrets, 60)}` : '';
  const auth = AUTH_BY_STATUS.get(res.status);
  const msg = `HTTP ${res.status}${st}${after}${text ? `: ${text}` : ''}${hintFor(auth)}${redirectNote(res, ctx)}`;
  if (auth) return new auth(callPrefix(ctx) + msg, callDetails(ctx, http));
  return new HttpStatusError(callPrefix(ctx) + msg, res.status, callDetails(ctx, http));
}

/** A 3xx is an answer, never followed: a redirect could point anywhere (outbound-policy.ts). */
function redirectNote(res: HttpErrorResponse, ctx: ErrorContext): string {
  if (res.status < 300 || res.status >= 400) return '';
  const location = res.headers['location'];
  const to = Array.isArray(location) ? location[0] : location;
  let where = '';
  try {
    if (to) where = `; Location: ${displayUrl(new URL(to, ctx.url).toString())}`;
  } catch {
    where = '; Location: <invalid url>';
  }
  return ` (redirects are not followed${where})`;
}

function errorFromRestStatus(
  e: { code?: number | undefined; status?: string | undefined; message?: string | undefined; details?: unknown[] | undefined },
  httpStatus: number,
  ctx: ErrorContext,
  http: { status: number; retryAfterMs?: number },
): A2AError {
  const reason = errorInfoReason(e.details);
  const message = cleanText(e.message ?? '', ctx.secrets);
  const d = callDetails(ctx, http);
  if (reason !== undefined) d.reason = reason;
  const telling = reason !== undefined && !EMPTY_REASONS.has(reason) ? reason : undefined;
  const byReason = readQuirks(telling !== undefined ? BY_REASON.get(telling) : undefined, message);
  const head = `HTTP ${httpStatus}${e.status ? ` ${cleanText(e.status, ctx.secrets, 40)}` : ''}${reason ? ` ${reason}` : ''}`;
  const text = `${head}${message ? `: ${message}` : ''}`;
  if (byReason) return new byReason(callPrefix(ctx) + text + hintFor(byReason), d);
  if (telling !== undefined) return new UnknownRemoteError(callPrefix(ctx) + `unrecognized error ${text}`, d);
  const byStatus = readQuirks(BY_STATUS_WITHOUT_REASON.get(httpStatus) ?? (e.status ? BY_RPC_STATUS.get(e.status) : undefined), message);
  if (byStatus) return new byStatus(callPrefix(ctx) + text + hintFor(byStatus), d);
  if (httpStatus >= 200 && httpStatus < 300) return new UnknownRemoteError(callPrefix(ctx) + `error body with ${text}`, d);
  return new HttpStatusError(callPrefix(ctx) + text, httpStatus, d);
}

/** An error object inside an HTTP+JSON stream (`event: error` or a frame with `error`). */
export function errorFromRestStreamFrame(body: unknown, ctx: ErrorContext): A2AError | undefined {
  const parsed = RestErrorBodySchema.safeParse(body);
  if (!parsed.success) return undefined;
  const status = parsed.data.error.code ?? 500;
  return errorFromRestStatus(parsed.data.error, status, ctx, { status });
}
