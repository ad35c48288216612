/**
 * A push notification's body from an agent of either version: v1.0 posts a StreamResponse
 * (spec §3.5.1), v0.3 agents post the `kind`-tagged Task (a2a-js 0.3 and a2a-python 0.3 both send
 * the whole task), lifted here to the StreamResponse a v1.0 agent would have sent.
 */
import { StreamResponseSchema, type StreamResponse } from '../../schema';
import { parseWith, type ParseResult } from '../../validate';
import { V03StreamEventSchema } from './schema';
import { eventToV1 } from './to-v1';

export function parsePushNotification(json: unknown): ParseResult<StreamResponse> {
  const v1 = parseWith(StreamResponseSchema, json);
  if (v1.ok || json === null || typeof json !== 'object' || !('kind' in json)) return v1;
  const v03 = parseWith(V03StreamEventSchema, json);
  return v03.ok ? { ok: true, value: eventToV1(v03.value) } : v03;
}
