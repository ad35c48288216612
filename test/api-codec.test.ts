// The Temporal UI's codec endpoint (server/codec/) over plain HTTP, as the UI's browser calls it:
// the codec-server protocol (POST /codec/encode and /codec/decode, `{payloads}` in proto3 JSON),
// CORS for the configured UI origin with its OPTIONS preflight, the API's operator auth, and hostile
// bodies: bad base64, references that reach outside the blob store, oversized bodies and answers.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { CLAIM_CHECK_ENCODING, ClaimCheckCodec } from '../payloads/claim-check-codec';
import { FolderBlobStore } from '../payloads/folder-blob-store';
import type { RunningServer } from '../server/main';
import { connectClient, testEnv, uniqueQueue } from './harness/planner';
import { call, OPERATOR_TOKEN, startApi, TOKEN } from './support/api';

const UI = 'http://ui.test:8233';
const queue = uniqueQueue('api-codec');
let client: Client;
let api: RunningServer;
let open: RunningServer;

beforeAll(async () => {
  client = await connectClient();
  // A 1 MiB cap on one answer's decoded data (the lowest PLANNER_PAYLOAD_MAX_BYTES allows), a 64 KiB body limit.
  api = await startApi(client, queue, { PLANNER_PAYLOAD_MAX_BYTES: String(1024 * 1024), PLANNER_CODEC_BODY_LIMIT: String(64 * 1024) });
  open = await startApi(client, queue, { PLANNER_CODEC_AUTH: 'none', PLANNER_CODEC_ORIGINS: `${UI}, http://localhost:8233` });
});
afterAll(async () => {
  await Promise.all([api?.close(), open?.close()]);
  await client?.connection.close();
});

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
const json = (value: unknown) => {
  const p = defaultPayloadConverter.toPayload(value);
  return { metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, b64(Buffer.from(v))])), data: b64(Buffer.from(p.data!)) };
};
const decodeJson = (p: { data: string }): unknown => JSON.parse(Buffer.from(p.data, 'base64').toString('utf8'));
const encodingOf = (p: { metadata: Record<string, string> }): string => Buffer.from(p.metadata.encoding!, 'base64').toString();
/** A reference as the claim-check codec writes it, naming any key. */
const reference = (sha256: string, size = 10) => ({ metadata: { encoding: b64(CLAIM_CHECK_ENCODING) }, data: b64(JSON.stringify({ sha256, size, metadata: { encoding: b64('json/plain') } })) });
const codec = (base: string, verb: string, body: unknown, token: string | null = OPERATOR_TOKEN, headers: Record<string, string> = {}) =>
  call(base, 'POST', `/codec/${verb}`, { body, token, headers: { 'x-namespace': 'default', ...headers } });

it('decodes a claim-check reference the workers wrote back into its JSON; small payloads pass as they are', async () => {
  // The reference is made by the codec the workers use, on the run's blob store.
  const artifact = { name: 'report.json', text: 'row\n'.repeat(100_000) };
  const [ref] = await new ClaimCheckCodec(new FolderBlobStore(testEnv().blobDir)).encode([defaultPayloadConverter.toPayload(artifact)]);
  const refJson = { metadata: { encoding: b64(Buffer.from(ref!.metadata!.encoding!)) }, data: b64(Buffer.from(ref!.data!)) };
  const small = json({ hello: 'world' });
  const r = await codec(api.url, 'decode', { payloads: [refJson, small] });
  expect(r.status).toBe(200);
  const out = (r.body as { payloads: Array<{ metadata: Record<string, string>; data: string }> }).payloads;
  expect(out).toHaveLength(2);
  expect(encodingOf(out[0]!)).toBe('json/plain');
  expect(decodeJson(out[0]!)).toEqual(artifact);
  expect(out[1]).toEqual(small);
});

it('encodes a large payload into a reference and decodes it back; the round trip is exact', async () => {
  const big = json({ blob: 'x'.repeat(200 * 1024) });
  const enc = await codec(api.url, 'encode', { payloads: [big] }, OPERATOR_TOKEN, {});
  // 200 KiB of JSON is over the 64 KiB body limit of `api`: encode on the open server (4 MiB).
  expect(enc.status).toBe(413);
  const enc2 = await codec(open.url, 'encode', { payloads: [big] }, null);
  expect(enc2.status).toBe(200);
  const [ref] = (enc2.body as { payloads: Array<{ metadata: Record<string, string>; data: string }> }).payloads;
  expect(encodingOf(ref!)).toBe(CLAIM_CHECK_ENCODING);
  expect(Buffer.from(ref!.data, 'base64').length).toBeLessThan(1024);
  const dec = await codec(open.url, 'decode', { payloads: [ref] }, null);
  expect(dec.status).toBe(200);
  expect((dec.body as { payloads: unknown[] }).payloads).toEqual([big]);
});

describe('CORS', () => {
  const preflight = (base: string, origin: string) =>
    fetch(`${base}/codec/decode`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-namespace' } });

  it('answers the preflight of the configured UI origin with the methods and headers the UI sends', async () => {
    const r = await preflight(api.url, UI);
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe(UI);
    expect(r.headers.get('access-control-allow-methods')).toMatch(/POST/);
    const allowed = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-namespace']));
    expect(r.headers.get('vary')).toMatch(/Origin/i);
    // PLANNER_CODEC_ORIGINS names several.
    expect((await preflight(open.url, 'http://localhost:8233')).headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
  });

  it('refuses another origin, in the preflight and in the request, without allowing it', async () => {
    const pre = await preflight(api.url, 'http://evil.test');
    expect(pre.status).toBe(403);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const r = await codec(api.url, 'decode', { payloads: [] }, OPERATOR_TOKEN, { origin: 'http://evil.test' });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: { code: 'forbidden', message: expect.stringContaining('PLANNER_CODEC_ORIGINS') } });
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows the UI origin on answers, errors included, so the UI can read why it failed', async () => {
    const ok = await codec(api.url, 'decode', { payloads: [] }, OPERATOR_TOKEN, { origin: UI });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI);
    const denied = await codec(api.url, 'decode', { payloads: [] }, null, { origin: UI });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(UI);
  });
});

describe('auth', () => {
  it("takes an operator's token; none, a wrong one or a caller's is refused", async () => {
    expect((await codec(api.url, 'decode', { payloads: [] }, null)).status).toBe(401);
    expect((await codec(api.url, 'decode', { payloads: [] }, 'not-a-token-of-this-deployment')).status).toBe(401);
    const caller = await codec(api.url, 'decode', { payloads: [] }, TOKEN);
    expect(caller.status).toBe(403);
    expect(caller.body).toMatchObject({ error: { code: 'forbidden', message: expect.stringContaining('PLANNER_API_OPERATOR_TOKEN') } });
    expect((await codec(api.url, 'encode', { payloads: [] }, TOKEN)).status).toBe(403);
    expect((await codec(api.url, 'decode', { payloads: [] }, OPERATOR_TOKEN)).status).toBe(200);
  });

  it('PLANNER_CODEC_AUTH=none needs no token', async () => {
    const r = await codec(open.url, 'decode', { payloads: [json(1)] }, null);
    expect(r.status).toBe(200);
    expect((r.body as { payloads: unknown[] }).payloads).toEqual([json(1)]);
  });
});

describe('hostile input', () => {
  it('names the problem: not JSON, bad base64, no payloads array, too many payloads', async () => {
    const text = await call(api.url, 'POST', '/codec/decode', { token: OPERATOR_TOKEN, raw: '{"payloads":[]}', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body).toMatchObject({ error: { code: 'unsupported_media_type', message: expect.stringContaining('"text/plain"') } });
    const badJson = await call(api.url, 'POST', '/codec/decode', { token: OPERATOR_TOKEN, raw: '{"payloads":', headers: { 'content-type': 'application/json' } });
    expect(badJson.status).toBe(400);
    const b = await codec(api.url, 'decode', { payloads: [{ metadata: { encoding: 'not base64!' }, data: 'AAAA' }] });
    expect(b.status).toBe(400);
    expect(b.body).toMatchObject({ error: { code: 'invalid_request', details: [{ path: 'body.payloads[0].metadata.encoding', message: expect.stringContaining('base64') }] } });
    expect((await codec(api.url, 'decode', { items: [] })).status).toBe(400);
    const many = await codec(api.url, 'decode', { payloads: Array.from({ length: 1001 }, () => ({})) });
    expect(many.status).toBe(400);
    expect(many.text).toContain('at most 1000 payloads');
  });

  it('refuses a body over PLANNER_CODEC_BODY_LIMIT with a 413 naming it', async () => {
    const r = await codec(api.url, 'decode', { payloads: [{ data: b64('y'.repeat(70 * 1024)) }] });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ error: { code: 'payload_too_large', message: expect.stringContaining('PLANNER_CODEC_BODY_LIMIT') } });
  });

  it('a reference names only a blob inside the store: a path, a missing blob, or a link out of the store is a 422', async () => {
    const traversal = await codec(api.url, 'decode', { payloads: [reference('../../../../etc/passwd')] });
    expect(traversal.status).toBe(422);
    expect(traversal.body).toMatchObject({ error: { message: expect.stringMatching(/^payloads\[0\]: bad claim-check reference: sha256: a lowercase hex sha256/) } });

    const missing = 'a'.repeat(64);
    const gone = await codec(api.url, 'decode', { payloads: [json('first'), reference(missing)] });
    expect(gone.status).toBe(422);
    expect(gone.text).toContain(`payloads[1]: blob ${missing} is not in the blob store`);

    // A link inside the store that leads outside it is never followed.
    const outside = join(testEnv().blobDir, '..', 'outside-secret.txt');
    writeFileSync(outside, 'a secret outside the blob store');
    const key = 'b'.repeat(64);
    mkdirSync(join(testEnv().blobDir, 'bb'), { recursive: true });
    symlinkSync(outside, join(testEnv().blobDir, 'bb', key));
    const linked = await codec(api.url, 'decode', { payloads: [reference(key)] });
    expect(linked.status).toBe(422);
    expect(linked.text).toContain('outside the blob store');
    expect(linked.text).not.toContain('secret');
  });

  it('one answer carries at most PLANNER_PAYLOAD_MAX_BYTES of decoded data: asking for a big blob twice is a 413', async () => {
    const [ref] = await new ClaimCheckCodec(new FolderBlobStore(testEnv().blobDir)).encode([defaultPayloadConverter.toPayload({ big: 'z'.repeat(700 * 1024) })]);
    const refJson = { metadata: { encoding: b64(Buffer.from(ref!.metadata!.encoding!)) }, data: b64(Buffer.from(ref!.data!)) };
    expect((await codec(api.url, 'decode', { payloads: [refJson] })).status).toBe(200);
    const twice = await codec(api.url, 'decode', { payloads: [refJson, refJson] });
    expect(twice.status).toBe(413);
    expect(twice.body).toMatchObject({ error: { code: 'payload_too_large', message: expect.stringContaining('at payloads[1] (PLANNER_PAYLOAD_MAX_BYTES)') } });
  });
});
