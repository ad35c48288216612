// The card a v0.3 caller gets (no A2A-Version header, or 0.3): the SDK compat layer's v0.3 card,
// built from the face's v1.0 card by @a2a-js/sdk's legacyAgentCardRouter (toCompatAgentCard with
// embedV1Interfaces). Its `url` / `preferredTransport` / `additionalInterfaces` name the v0.3
// interfaces, and it keeps the v1.0 card's `supportedInterfaces` (all four, v1.0 first), so the
// one card offers both versions: a v0.3 client reads the first fields, a v1.0 client that sent no
// header the last. The SDK sets its ETag, Cache-Control and `Vary: A2A-Version`, and answers
// If-None-Match with 304.
import type { NextFunction, Request, Response } from 'express';
import { AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { legacyAgentCardRouter } from '@a2a-js/sdk/compat/v0_3/server/express';
import type { AgentCard } from '../../../a2a/schema';

/** Serves `card` (the face's v1.0 card for this request) in v0.3 form; `maxAgeS` as the v1.0 card's. */
export function serveV03Card(card: AgentCard, maxAgeS: number, req: Request, res: Response, next: NextFunction): void {
  // The card's URLs depend on the request (PLANNER_PUBLIC_URL or Host), so the router is made for it.
  const router = legacyAgentCardRouter({ agentCardProvider: async () => SdkAgentCard.fromJSON(card), cache: { maxAge: maxAgeS } });
  router(req, res, next);
}
