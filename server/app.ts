// The Express app of `planner serve`: request ids and pino request logs, the public health and
// OpenAPI routes, the push webhook (its own per-task token), the Temporal UI's codec (server/codec/),
// then bearer auth, the content-type, body-size and nesting-depth checks, the per-caller stream
// bound, and the /v1 resources. Every error leaves as {error: {code, message, details}}.
import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { isGrpcServiceError } from '@temporalio/client';
import type { Logger } from 'pino';
import type { ApiContext } from './context';
import { ApiError } from './errors';
import { requireBearer, type AuthSettings } from './auth';
import { CallerStreams, STREAM_RETRY_AFTER_S } from './caller-streams';
import { JsonTooDeepError, refuseDeepJson } from './json-depth';
import { artifactsRouter } from './api/artifacts';
import { inboxRouter } from './api/inbox';
import { openApiDocument } from './api/openapi';
import { plansRouter } from './api/plans';
import { schedulesRouter } from './api/schedules';
import { tasksRouter } from './api/tasks';
import type { HealthSchema, ReadySchema } from './api/schemas';
import { pushRouter } from './push/receiver';
import { a2aRouter } from './face';
import { codecOrigins, codecRouter } from './codec/router';
import { countRequests } from './request-metrics';
import type { MetricMeter } from '@temporalio/common';
import { agentUrlsFrom } from './face/plans';
import type { z } from 'zod';

export interface AppOptions {
  auth: AuthSettings;
  /** The push webhook's secret; without it the webhook is not served. */
  pushSecret?: string;
  /** The agent base URLs the face's plans use (default: PLANNER_A2A_AGENT_URLS). */
  faceAgentUrls?: Record<string, string>;
  /** Where requests are counted (server/request-metrics.ts); none: not counted. */
  metricMeter?: MetricMeter;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** How long /readyz waits for Temporal. */
const READY_TIMEOUT_MS = 2000;

export function createApp(ctx: ApiContext, opts: AppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestLog(ctx.logger));
  if (opts.metricMeter) app.use(countRequests(opts.metricMeter));

  if (opts.pushSecret) app.use(pushRouter({ temporal: ctx.temporal, secret: opts.pushSecret, logger: ctx.logger }));

  // Liveness: the process serves requests. Readiness: Temporal answers too (a cheap call, 2 s at
  // most); neither names where Temporal is (the log does, under the request id).
  app.get('/healthz', (_req, res) => {
    const body: z.input<typeof HealthSchema> = { ok: true };
    res.json(body);
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await ctx.temporal.withDeadline(Date.now() + READY_TIMEOUT_MS, () => ctx.temporal.workflowService.getSystemInfo({}));
    } catch (err) {
      ((res.locals.log as Logger | undefined) ?? ctx.logger).warn({ err }, 'not ready: Temporal did not answer');
      throw new ApiError(503, 'unavailable', `not ready: Temporal did not answer within ${READY_TIMEOUT_MS / 1000} s; the server log has the details under this request id`);
    }
    const body: z.input<typeof ReadySchema> = { ready: true };
    res.json(body);
  });
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });

  // The Temporal UI's codec (server/codec/): its own CORS, auth and body limit, outside /v1.
  app.use(codecRouter(ctx, { auth: opts.auth, origins: codecOrigins(ctx.config), open: ctx.config.PLANNER_CODEC_AUTH === 'none' }));

  // One count of open streams per caller for both surfaces (/v1 events, the face's subscriptions).
  const streams = new CallerStreams(ctx.config.PLANNER_STREAMS_PER_CALLER);
  const v1 = express.Router();
  v1.use(requireBearer(opts.auth));
  v1.use(requireJsonBody);
  v1.use(express.json({ limit: ctx.config.PLANNER_API_BODY_LIMIT, type: isJson, strict: true, verify: refuseDeepJson(ctx.config.PLANNER_JSON_MAX_DEPTH) }));
  v1.get('/plans/:planId/events', holdStreamSlot(streams));
  v1.use(inboxRouter(ctx), tasksRouter(ctx), artifactsRouter(ctx), plansRouter(ctx), schedulesRouter(ctx));
  app.use('/v1', v1);

  app.use(a2aRouter(ctx, opts.auth, opts.faceAgentUrls ?? agentUrlsFrom(process.env), streams)); // the planner's A2A face: agent card, /a2a/jsonrpc, /a2a/rest (server/face/)

  app.use((req, _res, next) => next(new ApiError(404, 'not_found', `no route ${req.method} ${req.path}`)));
  app.use(errorHandler(ctx));
  return app;
}

function isJson(req: { headers: Record<string, unknown> }): boolean {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type);
}

const hasBody = (req: express.Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** A request with a body must say it is JSON: anything else is a 415 naming what it said. */
const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (!hasBody(req) || isJson(req)) return next();
  const said = req.headers['content-type'];
  next(new ApiError(415, 'unsupported_media_type', `the body must be application/json, not ${said ? JSON.stringify(said) : 'of no stated type (no Content-Type)'}`));
};

/** An event stream holds one of its caller's slots until it closes; without a free one, a 429 naming the bound. */
function holdStreamSlot(streams: CallerStreams): RequestHandler {
  return (_req, res, next) => {
    if (streams.take(res)) return next();
    res.set('Retry-After', String(STREAM_RETRY_AFTER_S));
    next(new ApiError(429, 'limit_exceeded', streams.refusal()));
  };
}

function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    res.set('X-Request-Id', requestId);
    const log = logger.child({ requestId });
    res.locals.log = log;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      // The path only: a query may carry a page token, and headers (Authorization) are never logged.
      log[level]({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}

/** body-parser's error types, as the API's codes. */
function fromBodyParser(err: { type?: string; message?: string }, limit: number): ApiError | undefined {
  switch (err.type) {
    case 'entity.too.large':
      return new ApiError(413, 'payload_too_large', `the body is over the limit of ${limit} bytes (PLANNER_API_BODY_LIMIT)`);
    case 'entity.parse.failed':
      return new ApiError(400, 'invalid_request', `the body is not valid JSON: ${err.message ?? 'parse error'}`, [{ path: 'body', message: 'not valid JSON' }]);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ApiError(415, 'unsupported_media_type', err.message ?? 'unsupported body encoding');
    case 'request.aborted':
    case 'request.size.invalid':
      return new ApiError(400, 'invalid_request', err.message ?? 'the body did not arrive whole');
    default:
      return undefined;
  }
}

/** Whether Temporal could not be reached (UNAVAILABLE or DEADLINE_EXCEEDED, also as the client's ServiceError's cause). */
function unreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(e) && (e.code === 14 || e.code === 4)) return true;
  }
  return false;
}

function errorHandler(ctx: ApiContext): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    const log: Logger = (res.locals.log as Logger | undefined) ?? ctx.logger;
    let api: ApiError;
    if (err instanceof ApiError) api = err;
    else if (err instanceof JsonTooDeepError) api = new ApiError(400, 'invalid_request', `invalid request: body: ${err.message}`, [{ path: 'body', message: err.message }]);
    else if (err && typeof err === 'object' && 'type' in err && fromBodyParser(err as { type?: string }, ctx.config.PLANNER_API_BODY_LIMIT)) {
      api = fromBodyParser(err as { type?: string }, ctx.config.PLANNER_API_BODY_LIMIT)!;
    } else if (err && typeof err === 'object' && 'status' in err && typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
      // Express's own client errors, e.g. a path whose %-encoding is broken.
      api = new ApiError(err.status, err.status === 404 ? 'not_found' : 'invalid_request', err instanceof Error ? err.message : 'bad request');
    } else if (unreachable(err)) {
      // The gRPC details name Temporal's internal address: the log keeps them, the caller gets the request id.
      log.warn({ err }, 'Temporal did not answer');
      api = new ApiError(503, 'unavailable', 'Temporal did not answer; the server log has the details under this request id');
    } else {
      log.error({ err }, 'request failed');
      api = new ApiError(500, 'internal', 'internal error; the server log has the details under this request id');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(api.status).json(api.body());
  };
}
