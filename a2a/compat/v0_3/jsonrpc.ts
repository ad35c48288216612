/**
 * v0.3's JSON-RPC binding: the same 2.0 envelopes as v1.0's (../../jsonrpc.ts), with v0.3's
 * method names (`message/send`, `tasks/resubscribe`, …) and no tenant; streams are SSE whose
 * `data:` lines each carry a response envelope around one `kind`-tagged event.
 */
import type { ErrorContext } from '../../call-context';
import { invalidResponse } from '../../errors';
import { exchangeJson, jsonEvents, openEventStream, type HeadersFor, type HttpRequest, type HttpTransport } from '../../http';
import { unwrapJsonRpc } from '../../jsonrpc';
import type { WireCallOptions, WireStreamOptions } from '../../types';
import type { V03Method, V03StreamMethod } from './to-v0_3';
import { dropBody, type V03Stream, type V03Wire } from './wire';

export class V03JsonRpcWire implements V03Wire {
  readonly binding = 'JSONRPC' as const;
  private nextId = 1;

  constructor(
    private readonly transport: HttpTransport,
    readonly url: string,
    private readonly headersFor: HeadersFor,
  ) {}

  private request(method: string, params: Record<string, unknown>, accept: string): { req: HttpRequest; id: number } {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    return { id, req: { url: this.url, method: 'POST', headers: { ...this.headersFor(this.url), 'content-type': 'application/json', accept }, body } };
  }

  async call(method: V03Method, params: Record<string, unknown>, ctx: ErrorContext, o: WireCallOptions): Promise<unknown> {
    const { req, id } = this.request(method, params, 'application/json');
    const res = await exchangeJson(this.transport, req, ctx, o);
    if (res.json === undefined) throw invalidResponse(ctx, `empty response body (HTTP ${res.status})`);
    return unwrapJsonRpc(withNullResult(res.json), id, ctx, 'response');
  }

  async open(method: V03StreamMethod, params: Record<string, unknown>, ctx: ErrorContext, o: WireStreamOptions): Promise<V03Stream> {
    const { req, id } = this.request(method, params, 'text/event-stream');
    const res = await openEventStream(this.transport, req, ctx, { signal: o.signal, maxResponseBytes: o.maxResponseBytes, held: o.held });
    async function* events(): AsyncGenerator<unknown, void, undefined> {
      for await (const { json } of jsonEvents(res, ctx, o)) yield unwrapJsonRpc(json, id, ctx, 'stream frame');
    }
    return { events: events(), release: () => dropBody(res.body) };
  }
}

/** a2a-python 0.3 leaves out a null `result` (tasks/pushNotificationConfig/delete answers `{jsonrpc, id}`). */
function withNullResult(json: unknown): unknown {
  if (json === null || typeof json !== 'object' || 'result' in json || 'error' in json) return json;
  return { ...json, result: null };
}
