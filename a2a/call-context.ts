/**
 * Who was called, where, and how that is written into a failure's message: the call context every
 * error is built from, and the text helpers that keep messages safe (URLs without userinfo or
 * query, peer text on one bounded line without the client's secrets).
 *
 * It sits apart from errors/ so that the outbound policy, which names refused URLs with
 * `displayUrl`, does not import the errors that are built from its refusals.
 */

/** The call a failure belongs to. */
export interface ErrorContext {
  agent: string;
  url: string;
  operation?: string;
  /** Values that must never appear in a message (the client's credentials). */
  secrets?: readonly string[];
}

/** The structured fields an A2AError carries besides its message. */
export interface A2AErrorDetails {
  /** Agent name (from options or the card). */
  agent?: string;
  /** Endpoint the call went to. */
  url?: string;
  /** A2A operation, e.g. `GetTask`. */
  operation?: string;
  /** JSON-RPC error code, when the peer sent one. */
  jsonRpcCode?: number;
  /** HTTP status of the response, when there was one. */
  status?: number;
  /** google.rpc.ErrorInfo reason, when the peer sent one. */
  reason?: string;
  retryAfterMs?: number;
  /** Node/undici error code of a transport failure (ConnectionError). */
  errno?: string;
  cause?: unknown;
}

/** A URL in a message is cut here: a card may name an endpoint of any length. */
export const DISPLAY_URL_MAX = 300;

/** Removes userinfo and the query string from a URL before it goes into a message (at most DISPLAY_URL_MAX characters). */
export function displayUrl(u: string): string {
  try {
    const url = new URL(u);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    const shown = url.toString();
    return shown.length > DISPLAY_URL_MAX ? `${shown.slice(0, DISPLAY_URL_MAX)}…` : shown;
  } catch {
    return '<invalid url>';
  }
}

/** Peer-supplied text: one line, bounded, without our secrets. */
export function cleanText(s: string, secrets: readonly string[] = [], max = 300): string {
  let out = s;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[REDACTED]');
  }
  // eslint-disable-next-line no-control-regex
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/** `agent <name> (<url>) <Operation>: `, the head of every call's error message. */
export function callPrefix(ctx: ErrorContext): string {
  return `agent ${ctx.agent} (${displayUrl(ctx.url)})${ctx.operation ? ` ${ctx.operation}` : ''}: `;
}

/** The structured fields of a call's error: agent, URL without secrets, operation. */
export function callDetails(ctx: ErrorContext, extra: A2AErrorDetails = {}): A2AErrorDetails {
  const d: A2AErrorDetails = { agent: ctx.agent, url: displayUrl(ctx.url), ...extra };
  if (ctx.operation !== undefined) d.operation = ctx.operation;
  return d;
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(v)) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
