/**
 * Failures that never got an A2A answer: whatever Node, undici, the SSE reader or the outbound
 * policy threw while a request was sent or a response read, turned into the A2AError that says
 * what happened (refused address, timeout and its phase, abort, broken connection, malformed
 * HTTP). Both bindings and the HTTP layer funnel their failures through `toA2AError`, so an error
 * already typed passes through unchanged.
 */
import { callDetails, callPrefix, cleanText, type ErrorContext } from '../call-context';
import { refusalIn } from '../outbound-policy';
import { SseReadError } from '../sse';
import {
  A2AError,
  AbortedError,
  AddressRefusedError,
  ConnectionError,
  TimeoutError,
  invalidParams,
  invalidResponse,
} from './index';

/** Node and undici codes known to mean network trouble (toA2AError also counts any E… or UND_ERR_… code). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ETIMEDOUT',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RESPONSE',
]);

function errCode(err: unknown): string | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // undici wraps connect failures in AggregateError (IPv4 + IPv6 attempts) or a `cause`.
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors)) for (const e of errors) { const c = errCode(e); if (c) return c; }
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err ? errCode(cause) : undefined;
}

export interface AbortState {
  /** Our own per-call deadline fired. */
  timedOut?: boolean;
  timeoutMs?: number;
  /** The caller's signal fired. */
  aborted?: boolean;
}

/**
 * Anything thrown while sending a request or reading a response. A2AErrors pass through, so
 * every binding can funnel its failures through here.
 */
export function toA2AError(err: unknown, ctx: ErrorContext, abort: AbortState = {}): A2AError {
  if (err instanceof A2AError) return err;
  const refusal = refusalIn(err);
  if (refusal) return new AddressRefusedError(callPrefix(ctx) + `not connecting: ${refusal.message}`, callDetails(ctx));
  if (abort.timedOut) {
    return new TimeoutError(callPrefix(ctx) + `call timed out after ${abort.timeoutMs ?? '?'} ms`, 'call', callDetails(ctx, { cause: err }));
  }
  if (abort.aborted) return new AbortedError(callPrefix(ctx) + 'aborted by the caller', callDetails(ctx, { cause: err }));
  if (err instanceof SseReadError) {
    switch (err.kind) {
      case 'idle':
        return new TimeoutError(callPrefix(ctx) + err.message, 'idle', callDetails(ctx));
      case 'aborted':
        return new AbortedError(callPrefix(ctx) + 'stream aborted by the caller', callDetails(ctx));
      case 'frame-too-large':
      case 'stream-too-large':
        return invalidResponse(ctx, err.message);
      case 'truncated':
        return new ConnectionError(callPrefix(ctx) + err.message, callDetails(ctx, { errno: 'SSE_TRUNCATED' }));
    }
  }
  const code = errCode(err);
  const text = err instanceof Error ? err.message : String(err);
  const raw = cleanText(text.replace(/^\w*Error: /, ''), ctx.secrets, 200);
  switch (code) {
    case 'ERR_INVALID_URL':
    case 'UND_ERR_INVALID_ARG':
      // Our request could not be built (bad URL in the card, bad header value): no retry helps.
      return invalidParams(ctx, `request not sent: ${raw}`);
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new TimeoutError(callPrefix(ctx) + 'connect timed out', 'connect', callDetails(ctx, { cause: err }));
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new TimeoutError(callPrefix(ctx) + 'timed out waiting for response headers', 'headers', callDetails(ctx, { cause: err }));
    case 'UND_ERR_BODY_TIMEOUT':
      return new TimeoutError(callPrefix(ctx) + 'timed out waiting for the response body', 'body', callDetails(ctx, { cause: err }));
    case 'UND_ERR_ABORTED':
    case 'ABORT_ERR':
    case 'UND_ERR_DESTROYED':
    case 'UND_ERR_CLOSED':
      return new AbortedError(callPrefix(ctx) + `request aborted (${raw})`, callDetails(ctx, { cause: err }));
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_STATUS':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return invalidResponse(ctx, `malformed HTTP response (${code}: ${raw})`, { cause: err });
    default:
      // System errno codes (E + capitals) and undici socket-level codes are network trouble.
      if (code !== undefined && (CONNECTION_CODES.has(code) || code.startsWith('UND_ERR_') || /^E[A-Z]+$/.test(code))) {
        return new ConnectionError(callPrefix(ctx) + `connection failed (${code}: ${raw})`, callDetails(ctx, { cause: err, errno: code }));
      }
      if (err instanceof Error && err.name === 'AbortError') {
        return new AbortedError(callPrefix(ctx) + 'request aborted', callDetails(ctx, { cause: err }));
      }
      return new ConnectionError(callPrefix(ctx) + `request failed (${raw})`, callDetails(ctx, { cause: err, ...(code ? { errno: code } : {}) }));
  }
}
