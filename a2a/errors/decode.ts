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
import { callDetails, callPrefix, cleanText, displayUrl, parseRetryAfter, type ErrorContext } from '../call-context';
import { JsonRpcErrorObjectSchema, RestErrorBodySchema, type JsonRpcErrorObject } from '../schema';
import {
  A2A_ERROR_SPECS,
  errorClassOf,
  HttpStatusError,
  InvalidParamsError,
  InvalidRequestError,
  UnknownRemoteError,
  UnsupportedOperationError,
  type A2AError,
  type A2AErrorClass,
  type A2AErrorSpec,
} from './index';

// --- Lookup tables, derived from the error table (errors/index.ts) ---------------------------------

const ROWS = A2A_ERROR_SPECS.map((spec) => ({ spec, cls: errorClassOf(spec) }));

/** The table's rows that fill in `column`, as lookup keys for their class. */
function lookup<K>(column: (spec: A2AErrorSpec) => readonly K[]): Map<K, A2AErrorClass> {
  return new Map(ROWS.flatMap(({ spec, cls }) => column(spec).map((key): [K, A2AErrorClass] => [key, cls])));
}
const listOf = <K>(v: K | undefined): K[] => (v === undefined ? [] : [v]);

/** JSON-RPC `error.code`. */
const BY_CODE = lookup((s) => listOf(s.code));
/** ErrorInfo reasons: the spec's A2A reasons and the words each SDK uses for the others. */
const BY_REASON = lookup((s) => [...listOf(s.reason), ...(s.sdkReasons ?? [])]);
/** Statuses that mean the same with any body, JSON or not: an auth proxy answers before the agent does. */
const BY_STATUS_ANY_BODY = lookup((s) => (s.httpStatusAnyBody ? listOf(s.httpStatus) : []));
/** HTTP statuses that identify an error in a Status body without a telling ErrorInfo. */
const BY_STATUS_WITHOUT_REASON = lookup((s) => listOf(s.httpStatus));
/** google.rpc.Code names that identify an error when no ErrorInfo is given. */
const BY_RPC_STATUS = lookup((s) => s.rpcStatuses ?? []);

// --- SDK quirks: what an SDK sends that means something else (one place, each named) ----------
// (The other words SDKs use for a reason are the table's `sdkReasons`: dialects, not quirks.)

/** Reasons that say nothing (a2a-python's UNKNOWN_ERROR for an unmapped error): the status decides. */
const EMPTY_REASONS = new Set(['UNKNOWN_ERROR']);

/**
 * A message to a task in a terminal state must be refused with UnsupportedOperationError (spec
 * §3.1.1, TCK CORE-SEND-002). a2a-go v2 (v2.4.0, v2.5.0; a2aproject/a2a-go#438, open) sends
 * InvalidParams instead (-32602 / HTTP 400 INVALID_PARAMS, "task in a terminal state
 * \"TASK_STATE_CANCELED\""), as did a2a-python before 1.3 (a2aproject/a2a-python#1205, "Task … is
 * in terminal state"). Read as what it means, a refused answer to a task that ended meanwhile
 * leads callers to GetTask (activities/send-message.ts) on every SDK instead of failing the run.
 * Seen in test/interop.test.ts ("a task that ends at the agent while a human thinks", go).
 */
function readQuirks(cls: A2AErrorClass | undefined, message: string): A2AErrorClass | undefined {
  // a2a-js 0.3 (A2A v0.3) says InvalidRequest: "Task … is in a terminal state (completed) and cannot be modified".
  if ((cls === InvalidParamsError || cls === InvalidRequestError) && refusesTaskInTerminalState(message)) return UnsupportedOperationError;
  return cls;
}

const isWordChar = (c: string | undefined): boolean =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_');

/** `word` at `i` of `s`, with a word boundary on both sides (regex `\b`). */
const wordAt = (s: string, i: number, word: string): boolean => s.startsWith(word, i) && !isWordChar(s[i - 1]) && !isWordChar(s[i + word.length]);

/**
 * One line of the message says "task … in (a) terminal state" (case-insensitive): what
 * `/\btask\b.*\bin (a )?terminal state\b/i` tested, which is quadratic on a peer's text of many
 * "task" words. Linear: per line, the first word "task", then any "in (a) terminal state" after it.
 */
export function refusesTaskInTerminalState(message: string): boolean {
  for (const line of asciiLowerCase(message).split(/[\n\r\u2028\u2029]/)) {
    let task = line.indexOf('task');
    while (task !== -1 && !wordAt(line, task, 'task')) task = line.indexOf('task', task + 1);
    if (task === -1) continue;
    for (let at = line.indexOf('in ', task + 4); at !== -1; at = line.indexOf('in ', at + 1)) {
      if (wordAt(line, at, 'in terminal state') || wordAt(line, at, 'in a terminal state')) return true;
    }
  }
  return false;
}

/** Only A-Z folded, as a non-unicode /i regex folds what these words hold. */
function asciiLowerCase(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

// --- Decoders ----------------------------------------------------------------------------------

/** What to do about it, for the classes that have advice. */
function hintFor(cls: A2AErrorClass | undefined): string {
  const hint = cls?.hint;
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
    // A2A v0.3's HTTP+JSON error in a2a-js 0.3: the JSON-RPC error object, bare, whatever the status.
    if (typeof rec['code'] === 'number' && typeof rec['message'] === 'string' && rec['error'] === undefined) {
      const e = JsonRpcErrorObjectSchema.safeParse(rec);
      if (e.success) return errorFromJsonRpc(e.data, ctx, http);
    }
    // a2a-python 0.3's HTTP+JSON error: only `{message}`; the status decides, the text is shown.
    if (typeof rec['message'] === 'string' && Object.keys(rec).length === 1) return statusError(res, ctx, http, cleanText(rec['message'], ctx.secrets));
    const status = RestErrorBodySchema.safeParse(body);
    if (status.success) return errorFromRestStatus(status.data.error, res.status, ctx, http);
    // application/problem+json (spec examples §6.4/§6.5) with an A2A error type: no reason, so the status decides.
    if (isA2AProblem(rec)) {
      const text = [rec['title'], rec['detail']].filter((x) => typeof x === 'string').join(': ');
      return statusError(res, ctx, http, cleanText(text, ctx.secrets));
    }
  }
  return statusError(res, ctx, http, describeBody(res));
}

/** A problem+json body whose `type` is one of A2A's error URIs (https://a2a-protocol.org/errors/...). */
function isA2AProblem(rec: Record<string, unknown>): boolean {
  const type = rec['type'];
  return typeof type === 'string' && type.startsWith('https://a2a-protocol.org/') && (typeof rec['title'] === 'string' || typeof rec['detail'] === 'string');
}

/** A body that is not an A2A error, by its outward facts only: `text/html, 1234 bytes` (empty: ''). */
export function describeBody(res: Pick<HttpErrorResponse, 'contentType' | 'text'>): string {
  const bytes = Buffer.byteLength(res.text, 'utf8');
  if (bytes === 0) return '';
  const type = res.contentType.split(';')[0]!.trim().toLowerCase();
  const shownType = /^[\w.+-]+\/[\w.+-]+$/.test(type) && type.length <= 100 ? type : type === '' ? 'no content type' : 'an odd content type';
  return `a body that is not an A2A error (${shownType}, ${bytes} bytes; not shown)`;
}

function statusError(
  res: HttpErrorResponse,
  ctx: ErrorContext,
  http: { status: number; retryAfterMs?: number },
  text: string,
): A2AError {
  const after = http.retryAfterMs !== undefined ? ` (retry after ${http.retryAfterMs} ms)` : '';
  const st = res.statusText ? ` ${cleanText(res.statusText, ctx.secrets, 60)}` : '';
  const auth = BY_STATUS_ANY_BODY.get(res.status);
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
