/**
 * v0.3's HTTP+JSON binding: `/v1/...` routes under the interface URL, bodies in the v0.3 proto's
 * JSON (rest-shapes.ts turns them into the JSON-RPC objects both bindings hand up), SSE streams
 * whose `data:` is one StreamResponse. Errors come in two dialects: a2a-js 0.3 sends the JSON-RPC
 * error object `{code, message, data}` with an HTTP status, a2a-python 0.3 only `{message}` with a
 * status from its table (404 task not found, 409 not cancelable, 422 invalid params, 501
 * unsupported); the code decides when there is one, else the status does.
 */
import { callDetails, cleanText, type ErrorContext } from '../../call-context';
import {
  ContentTypeNotSupportedError,
  HttpStatusError,
  InvalidAgentResponseError,
  invalidResponse,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  type A2AErrorClass,
} from '../../errors';
import { errorFromJsonRpc, refusesTaskInTerminalState } from '../../errors/decode';
import { exchangeJson, jsonEvents, openEventStream, type HeadersFor, type HttpMethod, type HttpRequest, type HttpTransport } from '../../http';
import { trimTrailing } from '../../remote-text';
import { JsonRpcErrorObjectSchema } from '../../schema';
import type { WireCallOptions, WireStreamOptions } from '../../types';
import { describeProblem, parseWith } from '../../validate';
import {
  ProtoPushConfigListSchema,
  ProtoSendResponseSchema,
  ProtoStreamResponseSchema,
  ProtoTaskPushConfigSchema,
  ProtoTaskResponseSchema,
  pushConfigToProto,
  sendRequestToProto,
} from './rest-shapes';
import { V03AgentCardSchema, type V03PushConfig } from './schema';
import type { V03Method, V03StreamMethod } from './to-v0_3';
import { dropBody, type V03Stream, type V03Wire } from './wire';
import type { z } from 'zod';

interface Route {
  method: HttpMethod;
  path: string;
  body?: Record<string, unknown>;
  /** What the answer's body is, read into the JSON-RPC object it stands for; none: ignored. */
  answer?: z.ZodType;
}

const id = (p: Record<string, unknown>, key: string): string => encodeURIComponent(String(p[key] ?? ''));

function routeOf(method: V03Method, p: Record<string, unknown>): Route {
  const task = `/v1/tasks/${id(p, method === 'tasks/pushNotificationConfig/set' ? 'taskId' : 'id')}`;
  switch (method) {
    case 'message/send':
      return { method: 'POST', path: '/v1/message:send', body: sendRequestToProto(p), answer: ProtoSendResponseSchema };
    case 'message/stream':
      return { method: 'POST', path: '/v1/message:stream', body: sendRequestToProto(p) };
    case 'tasks/get':
      return { method: 'GET', path: task + (typeof p['historyLength'] === 'number' ? `?historyLength=${p['historyLength']}` : ''), answer: ProtoTaskResponseSchema };
    case 'tasks/cancel':
      return { method: 'POST', path: `${task}:cancel`, body: {}, answer: ProtoTaskResponseSchema };
    case 'tasks/resubscribe':
      // a2a-python 0.3 routes only GET; a2a-js 0.3 both.
      return { method: 'GET', path: `${task}:subscribe` };
    case 'tasks/pushNotificationConfig/set': {
      const config = p['pushNotificationConfig'] as V03PushConfig;
      const name = `tasks/${String(p['taskId'])}/pushNotificationConfigs/${config.id ?? ''}`;
      const body = { parent: `tasks/${String(p['taskId'])}`, configId: config.id ?? '', config: { name, pushNotificationConfig: pushConfigToProto(config) } };
      return { method: 'POST', path: `${task}/pushNotificationConfigs`, body, answer: ProtoTaskPushConfigSchema };
    }
    case 'tasks/pushNotificationConfig/get':
      return { method: 'GET', path: `${task}/pushNotificationConfigs/${id(p, 'pushNotificationConfigId')}`, answer: ProtoTaskPushConfigSchema };
    case 'tasks/pushNotificationConfig/list':
      return { method: 'GET', path: `${task}/pushNotificationConfigs`, answer: ProtoPushConfigListSchema };
    case 'tasks/pushNotificationConfig/delete':
      return { method: 'DELETE', path: `${task}/pushNotificationConfigs/${id(p, 'pushNotificationConfigId')}` };
    case 'agent/getAuthenticatedExtendedCard':
      return { method: 'GET', path: '/v1/card', answer: V03AgentCardSchema };
  }
}

/** a2a-python 0.3's statuses (A2AErrorToHttpStatus), for an answer that carries no code. */
function classByStatus(status: number, path: string): A2AErrorClass | undefined {
  const push = path.includes('/pushNotificationConfigs');
  const onTask = path.startsWith('/v1/tasks/');
  if (status === 404 && onTask) return TaskNotFoundError;
  if (status === 409) return TaskNotCancelableError;
  if (status === 422) return InvalidParamsError;
  if (status === 415) return ContentTypeNotSupportedError;
  if (status === 501) return push ? PushNotificationNotSupportedError : UnsupportedOperationError;
  if (status === 502) return InvalidAgentResponseError;
  return undefined;
}

/** The error a non-2xx answer means: by a2a-js's code when the body has one, else by the status. */
function reread(e: unknown, path: string, ctx: ErrorContext): unknown {
  if (!(e instanceof HttpStatusError) || e.status === undefined) return e;
  const byStatus = classByStatus(e.status, path);
  // a2a-python 0.3 refuses a message to a finished task with 422 "Task … is in terminal state" (errors/decode.ts readQuirks).
  const cls = byStatus === InvalidParamsError && refusesTaskInTerminalState(e.message) ? UnsupportedOperationError : byStatus;
  return cls ? new cls(e.message, callDetails(ctx, { status: e.status })) : e;
}

/** a2a-js 0.3's error frame inside a stream, `{code, message, data?}` (errors/decode.ts reads it in a non-2xx answer). */
function codedError(json: unknown, ctx: ErrorContext, status?: number): Error | undefined {
  const rec = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : undefined;
  if (!rec || typeof rec['code'] !== 'number') return undefined;
  const e = JsonRpcErrorObjectSchema.safeParse(rec);
  return e.success ? errorFromJsonRpc(e.data, ctx, status !== undefined ? { status } : {}) : undefined;
}

export class V03RestWire implements V03Wire {
  readonly binding = 'HTTP+JSON' as const;
  private readonly base: string;

  constructor(
    private readonly transport: HttpTransport,
    readonly url: string,
    private readonly headersFor: HeadersFor,
  ) {
    this.base = trimTrailing(url, '/');
  }

  private request(r: Route, accept: string): HttpRequest {
    const url = this.base + r.path;
    const headers: Record<string, string> = { ...this.headersFor(url), accept };
    const req: HttpRequest = { url, method: r.method, headers };
    if (r.body !== undefined) {
      headers['content-type'] = 'application/json';
      req.body = JSON.stringify(r.body);
    }
    return req;
  }

  async call(method: V03Method, params: Record<string, unknown>, ctx: ErrorContext, o: WireCallOptions): Promise<unknown> {
    const r = routeOf(method, params);
    let json: unknown;
    try {
      json = (await exchangeJson(this.transport, this.request(r, 'application/json'), ctx, o)).json;
    } catch (e) {
      throw reread(e, r.path, ctx);
    }
    if (!r.answer) return json;
    const v = parseWith(r.answer, json);
    if (!v.ok) throw invalidResponse(ctx, describeProblem(v.problem, 'v0.3 HTTP+JSON response'));
    return v.value;
  }

  async open(method: V03StreamMethod, params: Record<string, unknown>, ctx: ErrorContext, o: WireStreamOptions): Promise<V03Stream> {
    const r = routeOf(method, params);
    const res = await openEventStream(this.transport, this.request(r, 'text/event-stream'), ctx, { signal: o.signal, maxResponseBytes: o.maxResponseBytes, held: o.held }).catch((e: unknown) => {
      throw reread(e, r.path, ctx);
    });
    async function* events(): AsyncGenerator<unknown, void, undefined> {
      for await (const { event, json } of jsonEvents(res, ctx, o)) {
        const coded = codedError(json, ctx);
        if (coded) throw coded;
        if (event === 'error') throw invalidResponse(ctx, `stream error frame: ${cleanText(JSON.stringify(json), ctx.secrets, 200)}`);
        const v = parseWith(ProtoStreamResponseSchema, json);
        if (!v.ok) throw invalidResponse(ctx, describeProblem(v.problem, 'v0.3 HTTP+JSON stream frame'));
        yield v.value;
      }
    }
    return { events: events(), release: () => dropBody(res.body) };
  }
}

