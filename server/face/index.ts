// The planner's own A2A v1.0 face in `planner serve`: the public agent card, then bearer auth
// (PLANNER_API_TOKEN, as the API), JSON-RPC at /a2a/jsonrpc and HTTP+JSON under /a2a/rest.
// @a2a-js/sdk's transports do the protocol's edges (A2A-Version, error codes, SSE framing); the
// PlannerRequestHandler serves every method from Temporal. See docs/a2a-server.md.
import { createHash } from 'node:crypto';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { AgentCard } from '../../a2a/schema';
import type { ApiContext } from '../context';
import { principalOfResponse, requireBearer, type AuthSettings } from '../auth';
import { PlannerRequestHandler, requestScope } from './handler';
import { PLAN_DOCUMENT_SKILL, agentUrlsFrom, planSkills, type PlanSkill } from './plans';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';

/** `push`: push notifications are offered (PLANNER_WEBHOOK_SECRET is set to seal their credentials). */
export function agentCard(baseUrl: string, skills: PlanSkill[], push: boolean): AgentCard {
  return {
    name: 'a2a-planner',
    description:
      'A durable planner: runs a plan of steps, each delegated to a remote A2A agent, for as long as they take. ' +
      "Its task relays its agents' questions (TASK_STATE_INPUT_REQUIRED: answer on the same task) and authorization requests (TASK_STATE_AUTH_REQUIRED: they travel outside A2A).",
    version: '0.1.0',
    supportedInterfaces: [
      { url: `${baseUrl}${JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${baseUrl}${REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
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

/** The face's routes; mounted by createApp before its 404 handler. */
export function a2aRouter(ctx: ApiContext, auth: AuthSettings, env: NodeJS.ProcessEnv = process.env): express.Router {
  const push = ctx.config.PLANNER_WEBHOOK_SECRET !== undefined;
  const skills = (): PlanSkill[] => planSkills(ctx.config.PLANNER_PLAN_DIR, (file, why) => ctx.logger.warn({ file, why }, 'plan file left out of the agent card'));
  const handler = new PlannerRequestHandler({
    client: ctx.temporal,
    taskQueue: ctx.config.PLANNER_TASK_QUEUE,
    card: () => agentCard('http://planner.invalid', [], push),
    skills,
    agentUrls: agentUrlsFrom(env),
    callerRules: { callerAgents: ctx.config.PLANNER_CALLER_AGENTS, registered: ctx.config.PLANNER_AGENTS },
    webhookSecret: ctx.config.PLANNER_WEBHOOK_SECRET,
  });
  const router = express.Router();

  // Public: the card needs no token and no A2A-Version header.
  // Its URLs come from PLANNER_PUBLIC_URL; without it from the Host header, and then a cache must
  // keep one card per Host (Vary: Host), or one caller's Host would be served to every other.
  const publicUrl = ctx.config.PLANNER_PUBLIC_URL;
  router.get(AGENT_CARD_PATH, (req, res) => {
    const body = JSON.stringify(agentCard(publicUrl ?? baseUrlOf(req), skills(), push));
    const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    res.set({ 'Cache-Control': 'public, max-age=300', ETag: etag, 'Content-Type': 'application/json' });
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
    requestScope.run({ signal: ac.signal, principal: principalOfResponse(res.locals) }, () => next());
  };
  const bearer = requireBearer(auth);
  const limit = ctx.config.PLANNER_API_BODY_LIMIT;
  router.use(JSONRPC_PATH, bearer, scoped, ...faceBody(limit, 'jsonrpc'), jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  router.use(REST_PATH, bearer, scoped, ...faceBody(limit, 'rest'), restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return router;
}

/**
 * The face's body parser, ahead of the SDK's (which then finds the body read and skips): the SDK's
 * own stops at body-parser's 100 KB default whatever PLANNER_API_BODY_LIMIT says. Its errors are
 * answered here in each binding's shape, as the SDK answers them: a parse error is JSON-RPC -32700
 * (HTTP 200) or a REST 400; a body over the limit is 413.
 */
function faceBody(limit: number, binding: 'jsonrpc' | 'rest'): [RequestHandler, ErrorRequestHandler] {
  const parse = express.json({ limit, type: ['application/json', 'application/a2a+json'], strict: false });
  const fail: ErrorRequestHandler = (err: { type?: string; status?: number }, _req, res, next) => {
    const tooLarge = err.type === 'entity.too.large';
    const malformed = err instanceof SyntaxError || err.type === 'entity.parse.failed';
    if (!tooLarge && !malformed) return next(err);
    const message = tooLarge ? `the body is over the limit of ${limit} bytes (PLANNER_API_BODY_LIMIT)` : 'Invalid JSON payload.';
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
