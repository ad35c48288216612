/**
 * HTTP underneath both bindings: an undici Agent (one keep-alive Pool per origin) with explicit
 * connect, headers and body timeouts, plus the two exchanges the bindings need: a bounded JSON
 * request/response and the opening of an event stream. Everything that can fail here is
 * turned into an A2AError by errors/ before it leaves this module.
 */
import { Agent, Client, type Dispatcher } from 'undici';
import { invalidResponse } from './errors';
import { errorFromHttpStatus, isJsonContentType } from './errors/decode';
import { toA2AError, type AbortState } from './errors/transport';
import type { ErrorContext } from './call-context';
import { outboundPolicy, type OutboundPolicy } from './outbound-policy';
import { readSse } from './sse';
import type { WireStreamOptions } from './types';

export interface Timeouts {
  /** TCP (and TLS) connect. */
  connectMs?: number;
  /** From sending the request to receiving the response headers. A blocking SendMessage
   * waits here until the task is terminal or interrupted, so this is generous by default. */
  headersMs?: number;
  /** Longest silence between two body chunks of a non-streaming response. */
  bodyMs?: number;
  /** Longest silence on an event stream (comments count as traffic). 0 disables. */
  streamIdleMs?: number;
}

export const DEFAULT_TIMEOUTS: Required<Timeouts> = {
  connectMs: 10_000,
  headersMs: 300_000,
  bodyMs: 60_000,
  // An agent in AUTH_REQUIRED may stay silent for long; after this the caller reconciles
  // with GetTask and resubscribes, which is what it must do after any close anyway.
  streamIdleMs: 300_000,
};

/** Cap for a non-streaming response body. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Cap for an agent card (cards are small; a huge one is hostile). */
export const DEFAULT_MAX_CARD_BYTES = 1024 * 1024;
/** Cap for everything one event stream carries, comments included (a stream of endless small frames). */
export const DEFAULT_MAX_STREAM_BYTES = 64 * 1024 * 1024;

export interface HttpTransportOptions {
  timeouts?: Timeouts;
  /** How long an idle keep-alive socket stays in the pool. */
  keepAliveMs?: number;
  /** Upper bound on pooled sockets per origin (a held stream has its own, outside the pool). Unlimited by default. */
  connectionsPerOrigin?: number;
  /**
   * Which addresses may be connected to, checked on every new socket after DNS (outbound-policy.ts).
   * Default: the process's policy (PLANNER_AGENT_ALLOW, link-local and metadata refused).
   */
  policy?: OutboundPolicy;
}

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/**
 * The headers for a request to `url`, computed per request: a credential is added only when the
 * URL's origin is one it was configured for (credentials.ts), whatever URL a card or plan gave.
 */
export type HeadersFor = (url: string) => Record<string, string>;

export interface HttpRequest {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body?: string;
}

/**
 * A keep-alive pool per origin, and a connection of its own for each held stream. Share one
 * between clients to share their connections.
 */
export class HttpTransport {
  readonly timeouts: Required<Timeouts>;
  private readonly agent: Agent;
  private readonly connect: ReturnType<OutboundPolicy['connector']>;
  private readonly held = new Set<Client>();
  private closing: Promise<void> | undefined;

  constructor(o: HttpTransportOptions = {}) {
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...stripUndefined(o.timeouts ?? {}) };
    this.connect = (o.policy ?? outboundPolicy()).connector({ timeout: this.timeouts.connectMs });
    this.agent = new Agent({
      // Redirects are never followed: undici's Agent has no redirect handling unless asked for.
      connect: this.connect,
      headersTimeout: this.timeouts.headersMs,
      bodyTimeout: this.timeouts.bodyMs,
      keepAliveTimeout: o.keepAliveMs ?? 30_000,
      pipelining: 1,
      ...(o.connectionsPerOrigin !== undefined ? { connections: o.connectionsPerOrigin } : {}),
    });
  }

  /**
   * Raw undici request; the caller owns (must consume or destroy) the body. `held`: a stream that
   * may stay open for days goes on a connection of its own, closed with its body, because undici's
   * pool looks through every connection it holds for a free one on each request: with 5,000 parked
   * streams in it, opening them cost quadratic time and every request to that agent paid for all.
   */
  send(
    req: HttpRequest,
    o: { signal?: AbortSignal | undefined; headersTimeout?: number; bodyTimeout?: number; held?: boolean } = {},
  ): Promise<Dispatcher.ResponseData> {
    const url = new URL(req.url);
    const options: Dispatcher.RequestOptions = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: req.method,
      headers: req.headers,
      body: req.body ?? null,
      signal: o.signal ?? null,
      headersTimeout: o.headersTimeout ?? this.timeouts.headersMs,
      bodyTimeout: o.bodyTimeout ?? this.timeouts.bodyMs,
    };
    return o.held ? this.sendHeld(url.origin, options) : this.agent.request(options);
  }

  private async sendHeld(origin: string, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    if (this.closing) throw new Error('the HTTP transport is closed');
    const client = new Client(origin, { connect: this.connect, pipelining: 1 });
    this.held.add(client);
    const release = (): void => {
      this.held.delete(client);
      client.destroy().catch(() => undefined);
    };
    try {
      const res = await client.request(options);
      if (res.body.destroyed) release();
      else res.body.once('close', release);
      return res;
    } catch (e) {
      release();
      throw e;
    }
  }

  /** Lets in-flight requests finish for up to `graceMs`, then drops every socket. */
  close(graceMs = 1_000): Promise<void> {
    this.closing ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const graceful = this.agent.close().then(() => true, () => false);
      const expired = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), graceMs)));
      const done = await Promise.race([graceful, expired]);
      if (timer) clearTimeout(timer);
      if (!done) await this.agent.destroy().catch(() => undefined);
      // A held stream never finishes on its own: its reader has stopped by now, or is cut here.
      await Promise.all([...this.held].map((c) => c.destroy().catch(() => undefined)));
      this.held.clear();
    })();
    return this.closing;
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

// ---------------------------------------------------------------------------------------------

/** A per-call deadline and the caller's signal, combined; remembers which one fired. */
export class CallSignal {
  readonly signal: AbortSignal | undefined;
  readonly state: AbortState = {};
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly controller: AbortController | undefined;
  private readonly onAbort: (() => void) | undefined;
  private readonly outer: AbortSignal | undefined;

  constructor(outer?: AbortSignal, timeoutMs?: number) {
    this.outer = outer;
    if (!outer && !timeoutMs) return;
    const controller = new AbortController();
    this.controller = controller;
    this.signal = controller.signal;
    if (timeoutMs && timeoutMs > 0) {
      this.state.timeoutMs = timeoutMs;
      this.timer = setTimeout(() => {
        this.state.timedOut = true;
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
    }
    if (outer) {
      this.onAbort = () => {
        this.state.aborted = true;
        controller.abort(outer.reason);
      };
      if (outer.aborted) this.onAbort();
      else outer.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.outer && this.onAbort) this.outer.removeEventListener('abort', this.onAbort);
  }
}

export function headerValue(h: Dispatcher.ResponseData['headers'], name: string): string {
  const v = h[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** Reads a body up to `limit` bytes; past that the socket is dropped and the call fails. */
export async function readBounded(body: Dispatcher.ResponseData['body'], limit: number, ctx: ErrorContext): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw invalidResponse(ctx, `response body larger than ${limit} bytes (the limit for ${ctx.operation ?? 'this call'})`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface JsonExchangeResult {
  status: number;
  /** Parsed body; undefined for an empty body (e.g. 204). */
  json: unknown;
}

export interface ExchangeOptions {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  maxResponseBytes?: number | undefined;
}

/**
 * One request with a JSON (or empty) 2xx answer. Non-2xx answers become the mapped error; a
 * 2xx with the wrong content type or broken JSON becomes InvalidAgentResponseError.
 */
export async function exchangeJson(
  transport: HttpTransport,
  req: HttpRequest,
  ctx: ErrorContext,
  o: ExchangeOptions = {},
): Promise<JsonExchangeResult> {
  const call = new CallSignal(o.signal, o.timeoutMs);
  let res: Dispatcher.ResponseData | undefined;
  try {
    res = await transport.send(req, { signal: call.signal });
    const contentType = headerValue(res.headers, 'content-type');
    const text = await readBounded(res.body, o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, ctx);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      throw errorFromHttpStatus({ status: res.statusCode, statusText: res.statusText, headers: res.headers, contentType, text }, ctx);
    }
    if (text.trim() === '') return { status: res.statusCode, json: undefined };
    if (!isJsonContentType(contentType)) {
      throw invalidResponse(ctx, `expected a JSON response, got content-type '${contentType || 'none'}' (HTTP ${res.statusCode})`, {
        status: res.statusCode,
      });
    }
    try {
      return { status: res.statusCode, json: JSON.parse(text) as unknown };
    } catch (e) {
      // Not JSON.parse's message: it quotes the body.
      const where = e instanceof SyntaxError ? /position (\d+)/.exec(e.message)?.[1] : undefined;
      throw invalidResponse(ctx, `response body is not valid JSON${where ? ` (at byte ${where})` : ''}`, { status: res.statusCode });
    }
  } catch (e) {
    if (res && !res.body.destroyed) res.body.destroy();
    throw toA2AError(e, ctx, call.state);
  } finally {
    call.dispose();
  }
}

function looksLikeError(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && 'error' in v;
  } catch {
    return false;
  }
}

export interface StreamOpenOptions {
  signal?: AbortSignal | undefined;
  maxResponseBytes?: number | undefined;
  /** Sent instead when the first request gets 405 (REST subscribe: POST vs GET, spec A8). */
  on405?: HttpRequest | undefined;
  /** A stream that may stay open for days (SubscribeToTask): on a connection of its own (HttpTransport.send). */
  held?: boolean | undefined;
}

/**
 * Sends a streaming request and returns the response once it is known to be an event stream.
 * A JSON answer (servers report pre-stream errors that way) becomes the mapped error.
 */
export async function openEventStream(
  transport: HttpTransport,
  req: HttpRequest,
  ctx: ErrorContext,
  o: StreamOpenOptions = {},
): Promise<Dispatcher.ResponseData> {
  const abort: AbortState = {};
  const onAbort = (): void => void (abort.aborted = true);
  o.signal?.addEventListener('abort', onAbort, { once: true });
  if (o.signal?.aborted) abort.aborted = true;
  let res: Dispatcher.ResponseData | undefined;
  try {
    // bodyTimeout 0: silence on a stream is governed by the SSE reader's idle timeout.
    res = await transport.send(req, { signal: o.signal, bodyTimeout: 0, held: o.held === true });
    if (res.statusCode === 405 && o.on405) {
      await res.body.dump().catch(() => undefined);
      res = await transport.send(o.on405, { signal: o.signal, bodyTimeout: 0, held: o.held === true });
    }
    const contentType = headerValue(res.headers, 'content-type');
    if (res.statusCode >= 200 && res.statusCode < 300 && /^text\/event-stream\b/i.test(contentType.trim())) return res;
    const text = await readBounded(res.body, o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, ctx);
    const answer = { status: res.statusCode, statusText: res.statusText, headers: res.headers, contentType, text };
    if (res.statusCode < 200 || res.statusCode >= 300) throw errorFromHttpStatus(answer, ctx);
    // Servers answer a streaming call that fails before its first event with a plain JSON error.
    if (isJsonContentType(contentType) && looksLikeError(text)) throw errorFromHttpStatus(answer, ctx);
    throw invalidResponse(ctx, `expected text/event-stream, got content-type '${contentType || 'none'}' (HTTP ${res.statusCode})`, {
      status: res.statusCode,
    });
  } catch (e) {
    if (res && !res.body.destroyed) res.body.destroy();
    throw toA2AError(e, ctx, abort);
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The JSON frames of an open event stream, with their SSE event names. Both bindings read their
 * streams through this, so framing limits, JSON errors and the connection's release (however the
 * reader stops: end, error, abort, or a consumer leaving early) are handled once.
 */
export async function* jsonEvents(
  res: Dispatcher.ResponseData,
  ctx: ErrorContext,
  o: WireStreamOptions,
): AsyncGenerator<{ event: string; json: unknown }, void, undefined> {
  try {
    const events = readSse(res.body, {
      maxFrameBytes: o.maxFrameBytes,
      maxStreamBytes: o.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES,
      idleTimeoutMs: o.idleTimeoutMs,
      ...(o.signal ? { signal: o.signal } : {}),
      release: () => res.body.destroy(),
    });
    for await (const ev of events) {
      let json: unknown;
      try {
        json = JSON.parse(ev.data);
      } catch {
        throw invalidResponse(ctx, `stream frame is not valid JSON (${ev.data.length} chars)`);
      }
      yield { event: ev.event, json };
    }
  } catch (e) {
    throw toA2AError(e, ctx, { aborted: o.signal?.aborted === true });
  } finally {
    if (!res.body.destroyed) res.body.destroy();
  }
}
