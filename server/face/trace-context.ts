// The face continues its caller's trace: a caller's W3C `traceparent` (an upstream planner's A2A
// call, a2a/tracing.ts) becomes the parent of a SERVER span `A2A face <method>`, and everything
// the call does (starting the plan's workflow through the traced Temporal client, its queries)
// runs inside it, so a chain of planners is one trace. With tracing off (runtime/tracing.ts) the
// API's no-op propagator and tracer make this a pass-through. Only trace context is read (the
// propagator is W3C trace-context alone): a caller's baggage would otherwise ride in every plan's
// history and reach every agent.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';

const tracer = () => trace.getTracer('a2a-planner/face');

/** A2A method names of the HTTP+JSON routes (spec §11), for the span's name. */
const REST_ROUTES: Array<[string, RegExp, string]> = [
  ['POST', /^\/message:send$/, 'SendMessage'],
  ['POST', /^\/message:stream$/, 'SendStreamingMessage'],
  ['GET', /^\/tasks$/, 'ListTasks'],
  ['GET', /^\/tasks\/[^/]+$/, 'GetTask'],
  ['POST', /^\/tasks\/[^/]+:cancel$/, 'CancelTask'],
  ['POST', /^\/tasks\/[^/]+:subscribe$/, 'SubscribeToTask'],
  ['GET', /^\/tasks\/[^/]+:subscribe$/, 'SubscribeToTask'],
  ['POST', /^\/tasks\/[^/]+\/pushNotificationConfigs$/, 'CreateTaskPushNotificationConfig'],
  ['GET', /^\/tasks\/[^/]+\/pushNotificationConfigs$/, 'ListTaskPushNotificationConfigs'],
  ['GET', /^\/tasks\/[^/]+\/pushNotificationConfigs\/[^/]+$/, 'GetTaskPushNotificationConfig'],
  ['DELETE', /^\/tasks\/[^/]+\/pushNotificationConfigs\/[^/]+$/, 'DeleteTaskPushNotificationConfig'],
];

/** The A2A method of a face request: the JSON-RPC body's (once parsed), or the REST route's; 'unknown' otherwise. */
function methodOf(req: Request): string {
  const body = req.body as { method?: unknown } | undefined;
  if (typeof body?.method === 'string' && /^[A-Za-z/]{1,64}$/.test(body.method)) return body.method;
  const path = req.path.replace(/^\/[^/]+(?=\/(message|tasks))/, ''); // a tenant's leading segment
  return REST_ROUTES.find(([m, re]) => m === req.method && re.test(path))?.[2] ?? 'unknown';
}

/** Runs `next` (the rest of the face's chain) inside a span continuing the caller's trace. */
export function continueCallerTrace(req: Request, res: Response, next: NextFunction): void {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer().startSpan('A2A face', { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'a2a', 'http.request.method': req.method } }, parent);
  if (span.isRecording()) {
    // The method is known once the body is read; the span ends when the response (or stream) does.
    res.once('close', () => {
      const method = methodOf(req);
      span.updateName(`A2A face ${method}`);
      span.setAttributes({ 'rpc.method': method, 'a2a.method': method, 'http.response.status_code': res.statusCode });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
  }
  context.with(trace.setSpan(parent, span), next);
}
