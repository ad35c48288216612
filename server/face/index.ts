// The planner's own A2A v1.0 face in `planner serve`: the public agent card, then bearer auth
// (PLANNER_API_TOKEN, as the API), JSON-RPC at /a2a/jsonrpc and HTTP+JSON under /a2a/rest.
// @a2a-js/sdk's transports do the protocol's edges (A2A-Version, error codes, SSE framing); the
// PlannerRequestHandler serves every method from Temporal. Ahead of the SDK: the body's size and
// nesting depth, and the caller's bound on open streams (shared with /v1); a 401 in each binding's
// shape; keep-alive comment frames on quiet streams. See docs/a2a-server.md.
import { createHash } from 'node:crypto';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { AgentCard } from '../../a2a/schema';
import type { ApiContext } from '../context';
import { principalOfResponse, requireBearer, type AuthSettings } from '../auth';
import { CallerStreams, STREAM_RETRY_AFTER_S } from '../caller-streams';
import { ApiError } from '../errors';
import { JsonTooDeepError, refuseDeepJson } from '../json-depth';
import { PlannerRequestHandler, requestScope } from './handler';
import { PLAN_DOCUMENT_SKILL, planSkills, type PlanSkill } from './plans';
import { sseKeepAlive } from './sse-keepalive';
import { continueCallerTrace } from './trace-context';
import { serveV03Card } from './v0_3/card';
import { sendV03JsonRpcError, v03JsonRpcEdge } from './v0_3/jsonrpc';
import { sendV03RestError, v03RestEdge } from './v0_3/rest';
import { speaksV03 } from './v0_3/version';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';
/** How long a cache may keep the card (either version). */
const CARD_MAX_AGE_S = 300;

/** `push`: push notifications are offered (PLANNER_WEBHOOK_SECRET is set to seal their credentials). */
export function agentCard(baseUrl: string, skills: PlanSkill[], push: boolean): AgentCard {
  return {
    name: 'a2a-planner',
    description:
      'A durable planner: runs a plan of steps, each delegated to a remote A2A agent, for as long as they take. ' +
      "Its task relays its agents' questions (TASK_STATE_INPUT_REQUIRED: answer on the same task) and authorization requests (TASK_STATE_AUTH_REQUIRED: they travel outside A2A).",
    version: '0.1.0',
    // v1.0 first (the planner's own), then the same two URLs for v0.3 callers (server/face/v0_3/):
    // the version is told by the A2A-Version header, not the path.
    supportedInterfaces: [
      { url: `${baseUrl}${JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${baseUrl}${REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${baseUrl}${JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${baseUrl}${REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ],
    capabilities: { streaming: true, pushNotifications: push, extendedAgentCard: false },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [...skills.map((s) => s.skill), PLAN_DOCUMENT_SKILL],
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'A token of PLANNER_API_TOKEN' } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  };
}

/** The base URL callers reached this server at, from the Host header (without PLANNER_PUBLIC_URL). */
function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/** The face's routes; mounted by createApp before its 404 handler. `streams`: the count of open streams it shares with /v1. */
export function a2aRouter(
  ctx: ApiContext,
  auth: AuthSettings,
  /** Agent base URLs that replace the plans' own, by agent name (PLANNER_A2A_AGENT_URLS; `planner dev`: its demo agents). */
  agentUrls: Record<string, string>,
  streams: CallerStreams = new CallerStreams(ctx.config.PLANNER_STREAMS_PER_CALLER),
): express.Router {
  const push = ctx.config.PLANNER_WEBHOOK_SECRET !== undefined;
  const skills = (): PlanSkill[] => planSkills(ctx.config.PLANNER_PLAN_DIR, (file, why) => ctx.logger.warn({ file, why }, 'plan file left out of the agent card'));
  const handler = new PlannerRequestHandler({
    client: ctx.temporal,
    taskQueue: ctx.config.PLANNER_TASK_QUEUE,
    card: () => agentCard('http://planner.invalid', [], push),
    skills,
    agentUrls,
    callerRules: { callerAgents: ctx.config.PLANNER_CALLER_AGENTS, registered: ctx.config.PLANNER_AGENTS },
    webhookSecret: ctx.config.PLANNER_WEBHOOK_SECRET,
    answerMaxBytes: ctx.config.PLANNER_ANSWER_MAX_BYTES,
    pushConfigsPerTask: ctx.config.PLANNER_PUSH_CONFIGS_PER_TASK,
  });
  const router = express.Router();

  // Public: the card needs no token. Its URLs come from PLANNER_PUBLIC_URL; without it from the
  // Host header, and then a cache must keep one card per Host (Vary: Host), or one caller's Host
  // would be served to every other. Without A2A-Version (or with 0.3) it is the v0.3 card that
  // also lists the v1.0 interfaces (v0_3/card.ts); with 1.0 the v1.0 card. Either varies on it.
  const publicUrl = ctx.config.PLANNER_PUBLIC_URL;
  router.use(AGENT_CARD_PATH, (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !speaksV03(req)) return next();
    if (publicUrl === undefined) res.vary('Host');
    serveV03Card(agentCard(publicUrl ?? baseUrlOf(req), skills(), push), CARD_MAX_AGE_S, req, res, next);
  });
  router.get(AGENT_CARD_PATH, (req, res) => {
    const body = JSON.stringify(agentCard(publicUrl ?? baseUrlOf(req), skills(), push));
    const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    res.set({ 'Cache-Control': `public, max-age=${CARD_MAX_AGE_S}`, ETag: etag, 'Content-Type': 'application/json' });
    res.vary('A2A-Version');
    if (publicUrl === undefined) res.vary('Host');
    if (req.get('if-none-match') === etag) {
      res.status(304).end();
      return;
    }
    res.send(body);
  });

  // A stream follows the plan only while its caller is connected; every call sees only its caller's tasks.
  const scoped: RequestHandler = (req, res, next) => {
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    // Inside the caller's trace, when it sent one (trace-context.ts).
    requestScope.run({ signal: ac.signal, principal: principalOfResponse(res.locals) }, () => continueCallerTrace(req, res, next));
  };
  const bearer = requireBearer(auth);
  const bounds = { limit: ctx.config.PLANNER_API_BODY_LIMIT, maxDepth: ctx.config.PLANNER_JSON_MAX_DEPTH };
  const keepAlive = sseKeepAlive(ctx.config.PLANNER_SSE_KEEPALIVE_MS);
  router.use(JSONRPC_PATH, bearer, unauthenticated('jsonrpc'), scoped, ...faceBody(bounds, 'jsonrpc'), v03JsonRpcEdge(), streamSlot(streams, 'jsonrpc'), keepAlive, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  router.use(REST_PATH, bearer, unauthenticated('rest'), scoped, ...faceBody(bounds, 'rest'), v03RestEdge(), streamSlot(streams, 'rest'), keepAlive, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  return router;
}

/**
 * requireBearer's 401 in the binding's shape, its WWW-Authenticate kept, as a2a-go answers it (and
 * a2a/errors reads it as UnauthenticatedError): HTTP+JSON's google.rpc.Status (code 401,
 * UNAUTHENTICATED); JSON-RPC an error response with id null (the body is not read before the token
 * is checked) and -31401 (§3.3.2 gives authentication no JSON-RPC code). Both carry an ErrorInfo
 * with reason UNAUTHENTICATED.
 */
function unauthenticated(binding: 'jsonrpc' | 'rest'): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (!(err instanceof ApiError) || err.status !== 401) return next(err);
    if (speaksV03(req)) return refuseV03(binding, res, 401, req.body, -31401, `Unauthenticated: ${err.message}`);
    const info = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'UNAUTHENTICATED', domain: 'a2a-protocol.org' }];
    res.status(401);
    if (binding === 'jsonrpc') res.json({ jsonrpc: '2.0', id: null, error: { code: -31401, message: `Unauthenticated: ${err.message}`, data: info } });
    else res.type('application/a2a+json').json({ error: { code: 401, status: 'UNAUTHENTICATED', message: err.message, details: info } });
  };
}

/** A refusal ahead of the SDK to a v0.3 caller, in its binding's v0.3 shape (server/face/v0_3/). */
function refuseV03(binding: 'jsonrpc' | 'rest', res: Response, status: number, body: unknown, code: number, message: string): void {
  if (binding === 'jsonrpc') sendV03JsonRpcError(res, status, (body as { id?: unknown } | undefined)?.id, code, message);
  else sendV03RestError(res, status, code, message);
}

/** The methods that answer with a stream, in v1.0 and 0.3 names (JSON-RPC). */
const STREAMING_METHODS = new Set(['SendStreamingMessage', 'SubscribeToTask', 'message/stream', 'tasks/resubscribe']);

/**
 * A streaming call (SendStreamingMessage, SubscribeToTask) holds one of its caller's stream slots
 * until it closes. Without a free one: HTTP 429 with Retry-After, JSON-RPC error -32000 (a
 * server error of the implementation's own: A2A has no code for it) or REST RESOURCE_EXHAUSTED,
 * naming PLANNER_STREAMS_PER_CALLER.
 */
function streamSlot(streams: CallerStreams, binding: 'jsonrpc' | 'rest'): RequestHandler {
  return (req, res, next) => {
    const body = req.body as { method?: unknown; id?: unknown } | undefined;
    const streaming = binding === 'jsonrpc' ? typeof body?.method === 'string' && STREAMING_METHODS.has(body.method) : /:(stream|subscribe)$/.test(req.path);
    if (!streaming || streams.take(res)) return next();
    res.status(429).set('Retry-After', String(STREAM_RETRY_AFTER_S));
    const message = `Too many open streams: ${streams.refusal()}`;
    if (speaksV03(req)) return refuseV03(binding, res, 429, body, -32000, message);
    if (binding === 'jsonrpc') {
      const id = typeof body?.id === 'string' || typeof body?.id === 'number' ? body.id : null;
      res.json({ jsonrpc: '2.0', id, error: { code: -32000, message } });
    } else {
      res.type('application/a2a+json').json({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message, details: [] } });
    }
  };
}

/**
 * The face's body parser, ahead of the SDK's (which then finds the body read and skips): the SDK's
 * own stops at body-parser's 100 KB default whatever PLANNER_API_BODY_LIMIT says. Its errors are
 * answered here in each binding's shape, as the SDK answers them: a parse error is JSON-RPC -32700
 * (HTTP 200) or a REST 400; a body over the limit is 413; a body nested deeper than
 * PLANNER_JSON_MAX_DEPTH is never parsed: HTTP 400, JSON-RPC -32600 or REST INVALID_ARGUMENT.
 */
function faceBody({ limit, maxDepth }: { limit: number; maxDepth: number }, binding: 'jsonrpc' | 'rest'): [RequestHandler, ErrorRequestHandler] {
  const parse = express.json({ limit, type: ['application/json', 'application/a2a+json'], strict: false, verify: refuseDeepJson(maxDepth) });
  const fail: ErrorRequestHandler = (err: { type?: string; status?: number }, req, res, next) => {
    if (err instanceof JsonTooDeepError) {
      if (speaksV03(req)) return refuseV03(binding, res, 400, undefined, -32600, `Invalid Request: ${err.message}`);
      if (binding === 'jsonrpc') res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: ${err.message}` } });
      else res.status(400).type('application/a2a+json').json({ error: { code: 400, status: 'INVALID_ARGUMENT', message: err.message, details: [] } });
      return;
    }
    const tooLarge = err.type === 'entity.too.large';
    const malformed = err instanceof SyntaxError || err.type === 'entity.parse.failed';
    if (!tooLarge && !malformed) return next(err);
    const message = tooLarge ? `the body is over the limit of ${limit} bytes (PLANNER_API_BODY_LIMIT)` : 'Invalid JSON payload.';
    if (speaksV03(req)) {
      // JSON-RPC answers a parse error with HTTP 200, as the SDK does; REST with 400.
      const status = tooLarge ? 413 : binding === 'jsonrpc' ? 200 : 400;
      return refuseV03(binding, res, status, undefined, tooLarge ? -32600 : -32700, tooLarge ? `Invalid Request: ${message}` : message);
    }
    if (binding === 'jsonrpc') {
      const code = tooLarge ? -32600 : -32700;
      res.status(tooLarge ? 413 : 200).json({ jsonrpc: '2.0', id: null, error: { code, message: tooLarge ? `Invalid Request: ${message}` : message } });
      return;
    }
    const status = tooLarge ? 413 : 400;
    res.status(status).type('application/a2a+json').json({ error: { code: status, status: 'INVALID_ARGUMENT', message, details: [] } });
  };
  return [parse, fail];
}
