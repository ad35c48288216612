// The codec endpoint of the Temporal UI (the codec-server protocol): POST /codec/decode and
// /codec/encode take `{payloads: [...]}` (proto3 JSON, base64 bytes) and answer the same shape, run
// through the planner's own payload codecs (the client's data converter: the claim-check codec on
// the configured blob store). Decoding turns a claim-check reference back into the artifact it
// stands for, so the UI shows a large result as the JSON it is instead of a reference.
//
// The browser calls it directly (CORS, cors.ts). Every caller is hostile: the body is bounded
// (PLANNER_CODEC_BODY_LIMIT, 1000 payloads), a reference names only a hex sha256 inside the blob
// store, and one answer carries at most PLANNER_PAYLOAD_MAX_BYTES of decoded data, read one blob at
// a time. The codec sees every plan's payloads, so it takes an operator's token, unless
// PLANNER_CODEC_AUTH=none (a UI without login, on a host only trusted people reach).
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { ApplicationFailure, type Payload, type PayloadCodec } from '@temporalio/common';
import { requireBearer, type AuthSettings } from '../auth';
import type { ApiContext } from '../context';
import { ApiError, parseOr400 } from '../errors';
import { refuseDeepJson } from '../json-depth';
import { BLOB_UNREADABLE, PAYLOAD_TOO_LARGE } from '../../payloads/failures';
import { codecCors } from './cors';
import { fromJson, PayloadsJsonSchema, toJson } from './payload-json';

export interface CodecOptions {
  auth: AuthSettings;
  /** Browser origins allowed to call it. */
  origins: readonly string[];
  /** No token needed (PLANNER_CODEC_AUTH=none). */
  open: boolean;
}

/** The codec's origins: PLANNER_CODEC_ORIGINS, else the origin of PLANNER_UI_URL. */
export function codecOrigins(config: { PLANNER_CODEC_ORIGINS?: string[]; PLANNER_UI_URL: string }): string[] {
  return config.PLANNER_CODEC_ORIGINS ?? [new URL(config.PLANNER_UI_URL).origin];
}

export function codecRouter(ctx: ApiContext, opts: CodecOptions): express.Router {
  const router = express.Router();
  const codecs = ctx.temporal.options.loadedDataConverter.payloadCodecs;
  router.use('/codec', codecCors(opts.origins));
  if (!opts.open) router.use('/codec', requireBearer(opts.auth), requireOperator);
  router.post('/codec/{*verb}', requireJson);
  router.use('/codec', express.json({ limit: ctx.config.PLANNER_CODEC_BODY_LIMIT, type: () => true, strict: true, verify: refuseDeepJson(ctx.config.PLANNER_JSON_MAX_DEPTH) }));
  router.post('/codec/decode', answer((p) => decodeBounded(p, codecs, ctx.config.PLANNER_PAYLOAD_MAX_BYTES)));
  router.post('/codec/encode', answer((p) => encode(p, codecs)));
  router.use('/codec', bodyErrors(ctx.config.PLANNER_CODEC_BODY_LIMIT));
  return router;
}

const requireOperator: RequestHandler = (_req, res, next) => {
  if (res.locals.operator === true) return next();
  next(new ApiError(403, 'forbidden', "the codec reads every plan's payloads: it takes an operator's token (PLANNER_API_OPERATOR_TOKEN), not a caller's"));
};

/** The protocol's body is JSON; anything else is refused before it is read. */
const requireJson: RequestHandler = (req, _res, next) => {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return next();
  next(new ApiError(415, 'unsupported_media_type', `the body must be application/json ({"payloads": [{"metadata": {...}, "data": "<base64>"}]}), not ${type ? JSON.stringify(type) : 'of no stated type (no Content-Type)'}`));
};

function answer(run: (payloads: Payload[]) => Promise<Payload[]>): RequestHandler {
  return async (req, res) => {
    const body = parseOr400(PayloadsJsonSchema, 'body', req.body);
    const out = await run(body.payloads.map(fromJson));
    res.json({ payloads: out.map(toJson) });
  };
}

/**
 * Decodes one payload at a time (the codecs in reverse, as the SDK does), so at most one blob is
 * read at once, and stops with a 413 once the answer would pass `maxBytes` of data.
 */
async function decodeBounded(payloads: Payload[], codecs: PayloadCodec[], maxBytes: number): Promise<Payload[]> {
  const out: Payload[] = [];
  let total = 0;
  for (const [i, p] of payloads.entries()) {
    let decoded = [p];
    try {
      for (const codec of [...codecs].reverse()) decoded = await codec.decode(decoded);
    } catch (err) {
      throw codecFailure(err, `payloads[${i}]`);
    }
    total += decoded.reduce((n, d) => n + (d.data?.length ?? 0), 0);
    if (total > maxBytes) {
      throw new ApiError(413, 'payload_too_large', `the decoded payloads pass ${maxBytes} bytes at payloads[${i}] (PLANNER_PAYLOAD_MAX_BYTES): ask for fewer at a time`);
    }
    out.push(...decoded);
  }
  return out;
}

async function encode(payloads: Payload[], codecs: PayloadCodec[]): Promise<Payload[]> {
  let encoded = payloads;
  try {
    for (const codec of codecs) encoded = await codec.encode(encoded);
  } catch (err) {
    throw codecFailure(err, 'payloads');
  }
  return encoded;
}

/** The codec's failures as 4xx naming the payload: a bad or missing reference is the caller's to fix. */
function codecFailure(err: unknown, where: string): unknown {
  if (!(err instanceof ApplicationFailure)) return err;
  if (err.type === BLOB_UNREADABLE) return new ApiError(422, 'invalid_request', `${where}: ${err.message}`, [{ path: `body.${where}`, message: err.message }]);
  if (err.type === PAYLOAD_TOO_LARGE) return new ApiError(413, 'payload_too_large', `${where}: ${err.message}`);
  return err;
}

/** body-parser's errors, named with the codec's own limit. */
function bodyErrors(limit: number): ErrorRequestHandler {
  return (err: unknown, _req, _res, next) => {
    const type = (err as { type?: string } | undefined)?.type;
    if (type === 'entity.too.large') return next(new ApiError(413, 'payload_too_large', `the body is over the codec's limit of ${limit} bytes (PLANNER_CODEC_BODY_LIMIT): send fewer payloads at a time`));
    next(err);
  };
}
