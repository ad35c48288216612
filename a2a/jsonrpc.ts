/**
 * JSON-RPC 2.0 binding (spec §9): every call is a POST of `{jsonrpc, id, method, params}` to the
 * interface URL; streams are SSE whose `data:` lines each carry a full response envelope.
 */
import type { ErrorContext } from './call-context';
import { invalidResponse } from './errors';
import { errorFromJsonRpc } from './errors/decode';
import { exchangeJson, jsonEvents, openEventStream, type HeadersFor, type HttpRequest, type HttpTransport } from './http';
import { JsonRpcResponseSchema, type JsonRpcId } from './schema';
import type {
  RequestParams,
  StreamOperation,
  UnaryOperation,
  WireBinding,
  WireCallOptions,
  WireStreamOptions,
} from './types';
import { describeProblem, parseWith } from './validate';

export class JsonRpcBinding implements WireBinding {
  readonly binding = 'JSONRPC' as const;
  private nextId = 1;

  constructor(
    private readonly transport: HttpTransport,
    readonly url: string,
    private readonly tenant: string | undefined,
    private readonly headersFor: HeadersFor,
  ) {}

  private request(method: string, params: RequestParams, accept: string): { req: HttpRequest; id: number } {
    const id = this.nextId++;
    // A client MUST send the chosen interface's tenant with every request (spec §8.3.2).
    const withTenant = this.tenant ? { ...params, tenant: this.tenant } : params;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: withTenant });
    return {
      id,
      req: { url: this.url, method: 'POST', headers: { ...this.headersFor(this.url), 'content-type': 'application/json', accept }, body },
    };
  }

  async call(op: UnaryOperation, params: RequestParams, ctx: ErrorContext, o: WireCallOptions): Promise<unknown> {
    const { req, id } = this.request(op, params, 'application/json');
    const res = await exchangeJson(this.transport, req, ctx, o);
    if (res.json === undefined) throw invalidResponse(ctx, `empty response body (HTTP ${res.status})`);
    return unwrapJsonRpc(res.json, id, ctx, 'response');
  }

  async *stream(op: StreamOperation, params: RequestParams, ctx: ErrorContext, o: WireStreamOptions): AsyncGenerator<unknown, void, undefined> {
    const { req, id } = this.request(op, params, 'text/event-stream');
    const res = await openEventStream(this.transport, req, ctx, { signal: o.signal, maxResponseBytes: o.maxResponseBytes, held: o.held });
    for await (const { json } of jsonEvents(res, ctx, o)) yield unwrapJsonRpc(json, id, ctx, 'stream frame');
  }
}

/** Unwraps a response envelope (v1.0 and v0.3 alike): the result, or the mapped error thrown. */
export function unwrapJsonRpc(json: unknown, id: number, ctx: ErrorContext, what: string): unknown {
  const env = parseWith(JsonRpcResponseSchema, json);
  if (!env.ok) throw invalidResponse(ctx, describeProblem(env.problem, what));
  // Some servers answer errors raised before reading the request with id null.
  if (!idMatches(env.value.id, id)) throw invalidResponse(ctx, `${what} id ${JSON.stringify(env.value.id)} does not match request id ${id}`);
  if ('error' in env.value) throw errorFromJsonRpc(env.value.error, ctx);
  return env.value.result;
}

function idMatches(got: JsonRpcId | undefined, sent: number): boolean {
  if (got === undefined || got === null) return true;
  return got === sent || got === String(sent);
}
