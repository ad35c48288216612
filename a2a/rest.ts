/**
 * HTTP+JSON binding (spec §11): one route per operation, relative to the interface URL, with
 * the tenant as a leading path segment; streams are SSE whose `data:` is a bare StreamResponse.
 */
import type { ErrorContext } from './call-context';
import { invalidParams, invalidResponse } from './errors';
import { errorFromRestStreamFrame } from './errors/decode';
import { exchangeJson, jsonEvents, openEventStream, type HttpMethod, type HeadersFor, type HttpRequest, type HttpTransport } from './http';
import { trimTrailing } from './remote-text';
import type {
  RequestParams,
  StreamOperation,
  UnaryOperation,
  WireBinding,
  WireCallOptions,
  WireStreamOptions,
} from './types';

const A2A_JSON = 'application/a2a+json';

interface Route {
  method: HttpMethod;
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
}

function str(p: RequestParams, key: string): string {
  const v = p[key];
  // An empty id would silently turn `/tasks/{id}` into the ListTasks route.
  if (typeof v !== 'string' || v === '') throw new TypeError(`request field ${key}: must be a non-empty string`);
  return encodeURIComponent(v);
}

/** Copies the defined members of `p` named in `keys`. */
function pick(p: RequestParams, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (p[k] !== undefined) out[k] = p[k];
  return out;
}

function route(op: UnaryOperation | StreamOperation, p: RequestParams, ctx: ErrorContext): Route {
  try {
    return routeOf(op, p);
  } catch (e) {
    throw invalidParams(ctx, e instanceof Error ? e.message : String(e));
  }
}

function routeOf(op: UnaryOperation | StreamOperation, p: RequestParams): Route {
  switch (op) {
    case 'SendMessage':
      return { method: 'POST', path: '/message:send', body: pick(p, ['message', 'configuration', 'metadata']) };
    case 'SendStreamingMessage':
      return { method: 'POST', path: '/message:stream', body: pick(p, ['message', 'configuration', 'metadata']) };
    case 'GetTask':
      return { method: 'GET', path: `/tasks/${str(p, 'id')}`, query: pick(p, ['historyLength']) };
    case 'ListTasks':
      return {
        method: 'GET',
        path: '/tasks',
        query: pick(p, ['contextId', 'status', 'pageSize', 'pageToken', 'historyLength', 'statusTimestampAfter', 'includeArtifacts']),
      };
    case 'CancelTask':
      // Always an object body: some servers reject a literal null (spec A8, a2a-go #380).
      return { method: 'POST', path: `/tasks/${str(p, 'id')}:cancel`, body: pick(p, ['metadata']) };
    case 'SubscribeToTask':
      return { method: 'POST', path: `/tasks/${str(p, 'id')}:subscribe`, body: {} };
    case 'CreateTaskPushNotificationConfig':
      return {
        method: 'POST',
        path: `/tasks/${str(p, 'taskId')}/pushNotificationConfigs`,
        body: pick(p, ['url', 'token', 'authentication']),
      };
    case 'GetTaskPushNotificationConfig':
      return { method: 'GET', path: `/tasks/${str(p, 'taskId')}/pushNotificationConfigs/${str(p, 'id')}` };
    case 'ListTaskPushNotificationConfigs':
      return { method: 'GET', path: `/tasks/${str(p, 'taskId')}/pushNotificationConfigs`, query: pick(p, ['pageSize', 'pageToken']) };
    case 'DeleteTaskPushNotificationConfig':
      return { method: 'DELETE', path: `/tasks/${str(p, 'taskId')}/pushNotificationConfigs/${str(p, 'id')}` };
    case 'GetExtendedAgentCard':
      return { method: 'GET', path: '/extendedAgentCard' };
  }
}

/** Query values are scalars: enums by name, booleans lowercase (spec §11.5). */
function queryString(q: Record<string, unknown> | undefined): string {
  if (!q) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') sp.append(k, String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

export class RestBinding implements WireBinding {
  readonly binding = 'HTTP+JSON' as const;
  private readonly base: string;

  constructor(
    private readonly transport: HttpTransport,
    readonly url: string,
    tenant: string | undefined,
    private readonly headersFor: HeadersFor,
  ) {
    // The tenant-prefixed form of every route, `/{tenant}/…` (spec §5.3, §8.3.2).
    this.base = trimTrailing(url, '/') + (tenant ? `/${encodeURIComponent(tenant)}` : '');
  }

  private request(r: Route, accept: string, method: HttpMethod = r.method): HttpRequest {
    const url = `${this.base}${r.path}${queryString(r.query)}`;
    const headers: Record<string, string> = { ...this.headersFor(url), accept };
    const req: HttpRequest = { url, method, headers };
    if (method !== 'GET' && method !== 'DELETE' && r.body !== undefined) {
      headers['content-type'] = A2A_JSON;
      req.body = JSON.stringify(r.body);
    }
    return req;
  }

  async call(op: UnaryOperation, params: RequestParams, ctx: ErrorContext, o: WireCallOptions): Promise<unknown> {
    const r = route(op, params, ctx);
    const res = await exchangeJson(this.transport, this.request(r, `${A2A_JSON}, application/json`), ctx, o);
    return res.json;
  }

  async *stream(op: StreamOperation, params: RequestParams, ctx: ErrorContext, o: WireStreamOptions): AsyncGenerator<unknown, void, undefined> {
    const r = route(op, params, ctx);
    const req = this.request(r, 'text/event-stream');
    // The proto says GET for subscribe, the spec text says POST (spec A8): try POST, then GET.
    const on405 = op === 'SubscribeToTask' ? this.request(r, 'text/event-stream', 'GET') : undefined;
    const res = await openEventStream(this.transport, req, ctx, { signal: o.signal, maxResponseBytes: o.maxResponseBytes, on405, held: o.held });
    for await (const { event, json } of jsonEvents(res, ctx, o)) {
      // a2a-js sends `event: error` with a google.rpc.Status body once the stream has begun.
      if (event === 'error' || (json !== null && typeof json === 'object' && 'error' in json)) {
        throw errorFromRestStreamFrame(json, ctx) ?? invalidResponse(ctx, 'stream error frame without a google.rpc.Status body');
      }
      yield json;
    }
  }
}
