// The page token of GET /v1/plans: Temporal's own visibility token, sealed with an HMAC and bound
// to the query it pages. Temporal's SQL visibility answers a token it cannot read with UNKNOWN,
// which the Temporal client retries ten times with backoff: a garbage token took about 19 s and
// ended in a 500. A sealed token is checked here, at once: anything this API did not issue for
// this very query is a 400 naming `pageToken`, and never reaches Temporal.
//
// The key is derived from the server's secrets (its callers' and operators' API tokens and the
// webhook secret), which every replica shares and no single caller holds all of; changing them
// makes tokens issued before invalid (a 400: start from the first page). With PLANNER_API_INSECURE and no secrets
// the key is public, which only a local, unauthenticated API accepts.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const MAC_BYTES = 16;

/** The sealing key of this deployment's page tokens. */
export function pageTokenKey(config: { PLANNER_API_TOKEN?: readonly string[]; PLANNER_API_OPERATOR_TOKEN?: readonly string[]; PLANNER_WEBHOOK_SECRET?: string }): Buffer {
  const secrets = [...(config.PLANNER_API_TOKEN ?? []), ...(config.PLANNER_API_OPERATOR_TOKEN ?? [])].sort().join('\n');
  return createHash('sha256').update(`a2a-planner page tokens\n${secrets}\n${config.PLANNER_WEBHOOK_SECRET ?? ''}`, 'utf8').digest();
}

const macOf = (key: Buffer, query: string, raw: Uint8Array): Buffer =>
  createHmac('sha256', key).update(query, 'utf8').update('\0').update(raw).digest().subarray(0, MAC_BYTES);

/** Temporal's token for `query`, sealed for the caller. */
export function sealPageToken(key: Buffer, query: string, raw: Uint8Array): string {
  return Buffer.concat([macOf(key, query, raw), raw]).toString('base64url');
}

/** Temporal's token inside `token`, if this API sealed it for this query; undefined otherwise. */
export function openPageToken(key: Buffer, query: string, token: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length <= MAC_BYTES) return undefined;
  const raw = bytes.subarray(MAC_BYTES);
  return timingSafeEqual(bytes.subarray(0, MAC_BYTES), macOf(key, query, raw)) ? raw : undefined;
}
