/**
 * What a peer's error response means: the JSON-RPC `error` object, a non-2xx HTTP response on
 * either binding (a JSON-RPC envelope, a google.rpc.Status body, problem+json or plain text) and
 * an error frame inside an HTTP+JSON stream, each turned into the A2AError class it names.
 *
 * The class is found by JSON-RPC code, then by ErrorInfo reason, then by HTTP status or
 * google.rpc.Code name; what an SDK sends that means something else is read as what it means
 * (the SDK quirks below, each with the SDK and issue). Peer text is cleaned and scrubbed of the
 * client's secrets before it goes into a message.
 */
import { callDetails, callPrefix, cleanText, displayUrl, parseRetryAfter, type A2AErrorDetails, type ErrorContext } from '../call-context';
import { JsonRpcErrorObjectSchema, RestErrorBodySchema, type JsonRpcErrorObject } from '../schema';
import {
  A2AError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  HttpStatusError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JsonRpcParseError,
  MethodNotFoundError,
  PermissionDeniedError,
  PushNotificationNotSupportedError,
  ServerError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnknownRemoteError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from './index';

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
