// Payloads as the codec-server protocol carries them: the proto3 JSON of temporal.api.common.v1.Payloads,
// `{payloads: [{metadata: {key: base64}, data: base64}]}`. Parsed with zod at the edge, since the
// body comes from a browser or anyone else who reaches the endpoint.
import type { Payload } from '@temporalio/common';
import { z } from 'zod';

/** How many payloads one request may carry (a UI page asks for one event's few at a time). */
export const MAX_PAYLOADS_PER_REQUEST = 1000;

// proto3 JSON writes standard base64 and reads both alphabets, padded or not.
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'base64');

const PayloadJsonSchema = z.object({
  metadata: z.record(z.string().min(1).max(256), base64).optional(),
  data: base64.optional(),
});

export const PayloadsJsonSchema = z.object({
  payloads: z.array(PayloadJsonSchema).max(MAX_PAYLOADS_PER_REQUEST, `at most ${MAX_PAYLOADS_PER_REQUEST} payloads a request`),
});

export type PayloadJson = z.infer<typeof PayloadJsonSchema>;

export function fromJson(p: PayloadJson): Payload {
  const metadata = Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
  return { metadata, data: Buffer.from(p.data ?? '', 'base64') };
}

export function toJson(p: Payload): PayloadJson {
  const metadata = Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]));
  return { metadata, data: Buffer.from(p.data ?? []).toString('base64') };
}
