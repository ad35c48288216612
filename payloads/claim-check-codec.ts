// The claim check (Temporal's recommended pattern for large payloads): a PayloadCodec that moves
// every payload larger than `offloadBytes` into a blob store and puts a small reference in its
// place, and turns references back into the payload on the way in. Workflow code never sees it:
// the worker encodes and decodes outside the workflow sandbox, so blob I/O here is allowed.
//
// The blob is the payload's data, keyed by its sha256; the reference carries the key, the size and
// the payload's own metadata (its encoding, e.g. json/plain), so decoding restores it exactly.
import { createHash } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { BLOB_KEY, BlobNotFoundError, type BlobStore } from './blob-store';
import { blobStoreWriteFailed, blobUnreadable, payloadTooLarge } from './failures';

/** The `encoding` metadata of a reference payload. */
export const CLAIM_CHECK_ENCODING = 'a2a-planner/claim-check';
/** Temporal refuses payloads over 2 MB and warns from 512 KiB: offload well below both. */
export const DEFAULT_OFFLOAD_BYTES = 128 * 1024;
/** The hard cap on one payload: what the worker is willing to hold in memory, several copies over. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const ENCODING_BYTES = encoder.encode(CLAIM_CHECK_ENCODING);

const ReferenceSchema = z.object({
  sha256: z.string().regex(BLOB_KEY, 'a lowercase hex sha256'),
  size: z.number().int().min(0),
  /** The original payload's metadata, values base64. */
  metadata: z.record(z.string(), z.string()),
});
type Reference = z.infer<typeof ReferenceSchema>;

export interface ClaimCheckOptions {
  /** Payloads whose data is larger than this go to the store. */
  offloadBytes?: number;
  /** Payloads larger than this fail with PayloadTooLarge. */
  maxBytes?: number;
}

export class ClaimCheckCodec implements PayloadCodec {
  readonly offloadBytes: number;
  readonly maxBytes: number;

  constructor(
    private readonly store: BlobStore,
    opts: ClaimCheckOptions = {},
  ) {
    this.offloadBytes = opts.offloadBytes ?? DEFAULT_OFFLOAD_BYTES;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    if (this.maxBytes < this.offloadBytes) throw new Error(`the payload cap (${this.maxBytes}) is below the offload threshold (${this.offloadBytes})`);
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => this.encodeOne(p)));
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => this.decodeOne(p)));
  }

  private async encodeOne(p: Payload): Promise<Payload> {
    const data = p.data ?? new Uint8Array(0);
    if (data.length <= this.offloadBytes || isReference(p)) return p;
    if (data.length > this.maxBytes) throw payloadTooLarge(data.length, this.maxBytes);
    const sha256 = createHash('sha256').update(data).digest('hex');
    try {
      await this.store.put(sha256, data);
    } catch (err) {
      throw blobStoreWriteFailed(this.store.location, err);
    }
    const ref: Reference = {
      sha256,
      size: data.length,
      metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')])),
    };
    return { metadata: { encoding: ENCODING_BYTES }, data: encoder.encode(JSON.stringify(ref)) };
  }

  private async decodeOne(p: Payload): Promise<Payload> {
    if (!isReference(p)) return p;
    const ref = parseReference(p);
    let data: Uint8Array;
    try {
      data = await this.store.get(ref.sha256);
    } catch (err) {
      if (err instanceof BlobNotFoundError) throw blobUnreadable(err.message);
      throw blobUnreadable(`cannot read blob ${ref.sha256} from the blob store at ${this.store.location}: ${(err as Error).message}`);
    }
    const actual = createHash('sha256').update(data).digest('hex');
    if (data.length !== ref.size || actual !== ref.sha256) {
      throw blobUnreadable(`blob ${ref.sha256} in ${this.store.location} is corrupt: ${data.length} bytes with sha256 ${actual}, expected ${ref.size} bytes`);
    }
    return { metadata: Object.fromEntries(Object.entries(ref.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])), data };
  }
}

export function isReference(p: Payload): boolean {
  const enc = p.metadata?.encoding;
  return enc !== undefined && enc !== null && decoder.decode(enc) === CLAIM_CHECK_ENCODING;
}

function parseReference(p: Payload): Reference {
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(p.data ?? new Uint8Array(0)));
  } catch {
    throw blobUnreadable('a claim-check reference is not JSON');
  }
  const parsed = ReferenceSchema.safeParse(json);
  if (!parsed.success) {
    throw blobUnreadable(`bad claim-check reference: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'reference'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
