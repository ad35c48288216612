/**
 * Reading a card that may be v0.3's: a v1.0 card is taken as it is (plus, for a card written for
 * both versions, the v0.3 endpoint its top-level `url` names); a v0.3 card (top-level `url`,
 * `preferredTransport`, `additionalInterfaces`, card-level `protocolVersion`) becomes the v1.0
 * card of the same agent whose interfaces say protocolVersion 0.3, so interface selection
 * (../../card.ts) sees one shape whichever version the agent speaks.
 */
import { z } from 'zod';
import { AgentCardSchema, type AgentCard } from '../../schema';
import { parseWith, type ParseResult } from '../../validate';
import { V03AgentCardSchema } from './schema';
import { cardToV1 } from './to-v1';

/** A v0.3 protocolVersion: "0.3", "0.3.0", … */
export function isV03Version(v: string): boolean {
  return /^0\.3(\.\d+)?$/.test(v.trim());
}

function looksV03(json: unknown): json is Record<string, unknown> {
  if (json === null || typeof json !== 'object') return false;
  const rec = json as Record<string, unknown>;
  return typeof rec['url'] === 'string' && typeof rec['protocolVersion'] === 'string' && isV03Version(rec['protocolVersion']);
}

/** The card in v1.0's shape, from a v1.0 or a v0.3 card. */
export function parseAgentCard(json: unknown): ParseResult<AgentCard> {
  const v1 = parseWith(AgentCardSchema, json);
  if (!looksV03(json)) return v1;
  const v03 = parseWith(V03AgentCardSchema, json);
  if (!v03.ok) return v1.ok ? v1 : v03;
  const lifted = cardToV1(v03.value);
  if (!v1.ok) return { ok: true, value: lifted };
  // Written for both: v1.0's interfaces first, then the v0.3 ones it does not already list.
  const card = v1.value;
  const listed = new Set(card.supportedInterfaces.map((i) => `${i.protocolBinding.toUpperCase()} ${i.url} ${i.protocolVersion}`));
  for (const i of lifted.supportedInterfaces) if (!listed.has(`${i.protocolBinding} ${i.url} ${i.protocolVersion}`)) card.supportedInterfaces.push(i);
  return { ok: true, value: card };
}

const anyVersionCard = z.unknown().transform((json, ctx): AgentCard => {
  const r = parseAgentCard(json);
  if (r.ok) return r.value;
  ctx.addIssue({ code: 'custom', message: r.problem.detail, path: r.problem.keys.filter((k): k is string | number => typeof k !== 'symbol') });
  return z.NEVER;
});

/**
 * A card given inline (a plan's agent, an API call), of either version, as a zod schema whose
 * output is the v1.0 card; a problem is reported at its field's path. Typed as the v1.0 schema:
 * TypeScript callers build v1.0 cards, a v0.3 card arrives only as JSON.
 */
export const AnyVersionAgentCardSchema = anyVersionCard as unknown as typeof AgentCardSchema;
