/**
 * One OpenTelemetry span per A2A call, and the W3C `traceparent` on every request, so a trace
 * follows a plan from its step into the agent. Only the OTel API is used here: with no tracer
 * provider registered (tracing off, runtime/tracing.ts) the span is the API's no-op and nothing
 * is injected. The span is a CLIENT span named `A2A <method>` (GetAgentCard for the card's fetch), with the agent's configured name,
 * the method, the binding, and the task id (from the request, else from the answer) as attributes;
 * a failed call records its A2AError's name and message (already cleaned of credentials).
 * Everything taken from the agent's answer is clipped: the agent may be hostile.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { cleanText, displayUrl } from './call-context';
import type { Binding } from './types';

export const A2A_SPAN_ATTRIBUTES = {
  agent: 'a2a.agent',
  method: 'a2a.method',
  binding: 'a2a.binding',
  taskId: 'a2a.task.id',
  taskState: 'a2a.task.state',
} as const;

export interface A2ACallInfo {
  agent: string;
  method: string;
  /** Unknown while the card is fetched (GetAgentCard). */
  binding?: Binding;
  url: string;
  params: Record<string, unknown>;
}

const ATTRIBUTE_MAX = 200;
const tracer = () => trace.getTracer('a2a-planner/a2a-client');

/** Adds the active trace context (`traceparent`, `tracestate`) to a request's headers. */
export function withTraceContext(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}

function startCall(call: A2ACallInfo): Span {
  const span = tracer().startSpan(`A2A ${call.method}`, { kind: SpanKind.CLIENT });
  if (!span.isRecording()) return span;
  span.setAttributes({
    'rpc.system': 'a2a',
    'rpc.method': call.method,
    [A2A_SPAN_ATTRIBUTES.agent]: call.agent,
    [A2A_SPAN_ATTRIBUTES.method]: call.method,
    ...(call.binding ? { [A2A_SPAN_ATTRIBUTES.binding]: call.binding } : {}),
    'url.full': displayUrl(call.url),
  });
  noteTask(span, taskOf(call.params));
  return span;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? cleanText(v, [], ATTRIBUTE_MAX) : undefined);
const field = (v: unknown, key: string): unknown => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined);

/** The task a request, an answer or a stream frame names, and its state when it says. */
function taskOf(v: unknown): { id?: string; state?: string } | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const nested = field(v, 'task') ?? field(v, 'statusUpdate') ?? field(v, 'artifactUpdate') ?? field(v, 'message');
  if (nested !== undefined) return taskOf(nested);
  // A push config's own `id` is not the task's: its `taskId` is, and is read first.
  const id = text(field(v, 'taskId')) ?? text(field(v, 'id'));
  const state = text(field(field(v, 'status'), 'state'));
  return id === undefined && state === undefined ? undefined : { ...(id ? { id } : {}), ...(state ? { state } : {}) };
}

function noteTask(span: Span, task: { id?: string; state?: string } | undefined): void {
  if (task?.id) span.setAttribute(A2A_SPAN_ATTRIBUTES.taskId, task.id);
  if (task?.state) span.setAttribute(A2A_SPAN_ATTRIBUTES.taskState, task.state);
}

function failed(span: Span, err: unknown): void {
  if (!span.isRecording()) return;
  const e = err instanceof Error ? err : new Error(String(err));
  span.setAttribute('error.type', e.name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: cleanText(e.message, [], 500) });
}

/** A unary call in its span; the request is sent with the span's context. */
export async function tracedCall<T>(call: A2ACallInfo, send: () => Promise<T>): Promise<T> {
  const span = startCall(call);
  try {
    const result = await context.with(trace.setSpan(context.active(), span), send);
    if (span.isRecording()) noteTask(span, taskOf(result));
    return result;
  } catch (e) {
    failed(span, e);
    throw e;
  } finally {
    span.end();
  }
}

/**
 * A stream in one span, from its request until it ends, fails or its reader stops. The stream's
 * generator resumes inside the span's context, so the request it sends carries the span's
 * traceparent. Each frame goes through `check` (the client's validation) inside the span, so a
 * frame refused there fails the span; each frame that names the task sets its id and state, so
 * the span ends with the last.
 */
export async function* tracedStream<T>(call: A2ACallInfo, open: () => AsyncIterator<unknown>, check: (frame: unknown) => T): AsyncGenerator<T, void, undefined> {
  const span = startCall(call);
  const ctx = trace.setSpan(context.active(), span);
  const it = open();
  let done = false;
  try {
    for (;;) {
      const r = await context.with(ctx, () => it.next());
      if (r.done) {
        done = true;
        return;
      }
      const frame = check(r.value);
      if (span.isRecording()) noteTask(span, taskOf(frame));
      yield frame;
    }
  } catch (e) {
    failed(span, e);
    throw e;
  } finally {
    // A reader that stops early, or a refused frame, closes the stream as a for-await would have.
    if (!done) await it.return?.();
    span.end();
  }
}
