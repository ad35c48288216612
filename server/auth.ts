// Bearer-token authentication for the API and the A2A face, and who the caller is. Tokens come from
// PLANNER_API_TOKEN (callers: each sees only what it started) and PLANNER_API_OPERATOR_TOKEN
// (operators: they see, answer and cancel everything); both are comma-separated lists, so that a new
// token can be added before the old one is removed. Each presented token is hashed and compared
// with every configured token's hash in constant time: comparing digests of equal length means
// neither the token's length nor its content, nor which list it is in, leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ApiError } from './errors';

export interface AuthSettings {
  /** The callers' tokens (PLANNER_API_TOKEN). */
  tokens: readonly string[];
  /** The operators' tokens (PLANNER_API_OPERATOR_TOKEN). */
  operatorTokens: readonly string[];
  /** No token at all: every request is the one anonymous caller, who is an operator. */
  insecure: boolean;
}

/** Who is asking: its principal (what it starts is recorded as its own) and whether it is an operator. */
export interface Caller {
  principal: string;
  /** Sees, answers and cancels everything, whoever started it (and what nobody's API token started). */
  operator: boolean;
}

/**
 * Refuses to build an API without a token unless insecure mode is explicitly on, and a token that
 * is in both lists (its role would be ambiguous).
 */
export function authSettings(config: { PLANNER_API_TOKEN?: string[]; PLANNER_API_OPERATOR_TOKEN?: string[]; PLANNER_API_INSECURE: boolean }): AuthSettings {
  const tokens = config.PLANNER_API_TOKEN ?? [];
  const operatorTokens = config.PLANNER_API_OPERATOR_TOKEN ?? [];
  if (tokens.length === 0 && operatorTokens.length === 0 && !config.PLANNER_API_INSECURE) {
    throw new Error(
      'PLANNER_API_TOKEN is not set: the API refuses to start without a bearer token. Set PLANNER_API_TOKEN (callers) and/or ' +
        'PLANNER_API_OPERATOR_TOKEN (operators), comma-separated for rotation, each at least 16 characters, or PLANNER_API_INSECURE=1 for a local, unauthenticated API.',
    );
  }
  const both = tokens.findIndex((t) => operatorTokens.includes(t));
  if (both >= 0) throw new Error(`PLANNER_API_TOKEN: its token #${both + 1} is in PLANNER_API_OPERATOR_TOKEN too; a token is either a caller's or an operator's`);
  return { tokens, operatorTokens, insecure: tokens.length === 0 && operatorTokens.length === 0 && config.PLANNER_API_INSECURE };
}

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** The caller when no token is configured (PLANNER_API_INSECURE): everyone is the same one, an operator. */
export const ANONYMOUS_PRINCIPAL = 'anonymous';

/**
 * A caller's stable id: 12 hex digits of a hash of its token, the same on every replica and after
 * restarts, and never the token. Each token of PLANNER_API_TOKEN is its own caller: what one token
 * started (A2A tasks) another does not see, so a rotated token does not inherit the old one's tasks.
 */
export function principalOf(token: string): string {
  return createHash('sha256').update(`a2a-planner principal\n${token}`, 'utf8').digest('hex').slice(0, 12);
}

/** The principal requireBearer found for the request (set on res.locals). */
export function principalOfResponse(locals: Record<string, unknown>): string {
  return typeof locals.principal === 'string' ? locals.principal : ANONYMOUS_PRINCIPAL;
}

/** The caller requireBearer found for the request: its principal and role (an operator only when requireBearer said so). */
export function callerOfResponse(locals: Record<string, unknown>): Caller {
  return { principal: principalOfResponse(locals), operator: locals.operator === true };
}

/** True when `presented` is one of the tokens; the time taken does not depend on where they differ. */
export function tokenAccepted(presentedDigest: Buffer, digests: readonly Buffer[]): boolean {
  let ok = false;
  // Every configured token is compared, whichever matches, so the time does not say which one did.
  for (const d of digests) ok = timingSafeEqual(presentedDigest, d) || ok;
  return ok;
}

export function requireBearer(settings: AuthSettings): RequestHandler {
  const callers = settings.tokens.map(digest);
  const operators = settings.operatorTokens.map(digest);
  return (req, res, next) => {
    if (settings.insecure) {
      res.locals.principal = ANONYMOUS_PRINCIPAL;
      res.locals.operator = true;
      return next();
    }
    const header = req.get('authorization');
    const m = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!m) {
      res.set('WWW-Authenticate', 'Bearer realm="a2a-planner"');
      return next(new ApiError(401, 'unauthenticated', header ? 'the Authorization header is not "Bearer <token>"' : 'missing Authorization: Bearer <token>'));
    }
    const presented = digest(m[1]!);
    // Both lists are compared, whichever matches: the time does not say which role a token has.
    const asCaller = tokenAccepted(presented, callers);
    const asOperator = tokenAccepted(presented, operators);
    if (!asCaller && !asOperator) {
      res.set('WWW-Authenticate', 'Bearer realm="a2a-planner", error="invalid_token"');
      return next(new ApiError(401, 'unauthenticated', 'the bearer token is not accepted here'));
    }
    res.locals.principal = principalOf(m[1]!);
    res.locals.operator = asOperator;
    next();
  };
}
