// Large artifacts: a task whose artifact is far over Temporal's payload limit (2 MB) completes, its
// history holds only small references (the claim-check codec keeps the bytes in the blob store),
// and `planner artifact` gives the user the exact bytes back.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { ClaimCheckCodec, CLAIM_CHECK_ENCODING, isReference } from '../payloads/claim-check-codec';
import { FolderBlobStore } from '../payloads/folder-blob-store';
import { EXPORT_ARTIFACT, exportBytes, startExporter, type AgentHandle } from './agents';
import { plannerEnv } from './harness/planner';
import { itReplaysItsHistories, plannerSuite } from './support/suite';

const SIZE = 10 * 1024 * 1024;
/** The default offload threshold: every payload above it must have gone to the blob store. */
const OFFLOAD_BYTES = 128 * 1024;
const BIN = join(__dirname, '..', 'bin', 'planner.js');

const suite = plannerSuite('payloads');

interface Exit {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** The CLI as a user runs it; stdout kept as bytes, since an artifact may be binary. */
function planner(...args: string[]): Promise<Exit> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: tmpdir(),
    env: { ...process.env, ...plannerEnv(suite.queue) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr });
    }),
  );
}

/** Every Payload message in a history, wherever it sits (inputs, results, signals, failures...). */
function payloadsOf(node: unknown, found: temporal.api.common.v1.IPayload[] = []): temporal.api.common.v1.IPayload[] {
  if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return found;
  const o = node as Record<string, unknown>;
  if (o.data instanceof Uint8Array && o.metadata !== null && typeof o.metadata === 'object') {
    found.push(o as temporal.api.common.v1.IPayload);
    return found;
  }
  for (const v of Array.isArray(node) ? node : Object.values(o)) payloadsOf(v, found);
  return found;
}

const sizeOf = (p: temporal.api.common.v1.IPayload): number =>
  (p.data?.length ?? 0) + Object.entries(p.metadata ?? {}).reduce((n, [k, v]) => n + k.length + (v?.length ?? 0), 0);

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

describe('a 10 MiB artifact', () => {
  let exporter: AgentHandle;
  let workflowId: string;
  const expected = exportBytes(SIZE);

  beforeAll(async () => {
    exporter = await startExporter({ artifactBytes: SIZE });
  });
  afterAll(() => exporter?.close());

  it('completes the task, and the history holds only small payloads', async () => {
    const handle = await suite.start({ agent: { name: 'exporter', url: exporter.baseUrl }, message: { text: 'Export the data set' } });
    workflowId = handle.workflowId;
    const result = await within(handle.result(), 90_000, 'the task did not complete');
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    const artifact = result.artifacts.find((a) => a.name === EXPORT_ARTIFACT);
    const raw = artifact?.parts[0] && 'raw' in artifact.parts[0] ? artifact.parts[0].raw : undefined;
    expect(raw).toBeDefined();
    expect(Buffer.from(raw!, 'base64').equals(expected)).toBe(true);

    const payloads = payloadsOf(await handle.fetchHistory());
    const largest = Math.max(...payloads.map(sizeOf));
    expect(largest).toBeLessThanOrEqual(OFFLOAD_BYTES);
    // The artifact travelled by reference: at least the workflow's result is one.
    const refs = payloads.filter((p) => Buffer.from(p.metadata?.encoding ?? []).toString() === 'a2a-planner/claim-check');
    expect(refs.length).toBeGreaterThan(0);
  }, 120_000);

  it('`planner artifact` writes its exact bytes to stdout and to --out FILE', async () => {
    expect(workflowId).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'planner-artifact-'));
    try {
      const file = join(dir, 'export.bin');
      const [toStdout, toFile] = await Promise.all([
        planner('artifact', workflowId, EXPORT_ARTIFACT),
        planner('artifact', workflowId, EXPORT_ARTIFACT, '--out', file),
      ]);
      expect({ code: toStdout.code, stderr: toStdout.stderr }).toEqual({ code: 0, stderr: '' });
      expect(toStdout.stdout.length).toBe(SIZE);
      expect(toStdout.stdout.equals(expected)).toBe(true);
      expect(toFile.code).toBe(0);
      expect(toFile.stdout.length).toBe(0);
      expect(toFile.stderr).toContain(file);
      expect(readFileSync(file).equals(expected)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('`planner artifact` names what exists when the artifact or the task does not', async () => {
    expect(workflowId).toBeDefined();
    const [noArtifact, noTask] = await Promise.all([planner('artifact', workflowId, 'nope.txt'), planner('artifact', 'task-none-here', 'x')]);
    expect(noArtifact.code).toBe(1);
    expect(noArtifact.stderr).toMatch(new RegExp(`no artifact named "nope.txt".*${EXPORT_ARTIFACT.replace('.', '\\.')}`));
    expect(noTask.code).toBe(1);
    expect(noTask.stderr).toMatch(/no delegated task with id task-none-here/);
    for (const r of [noArtifact, noTask]) expect(r.stderr.trim().split('\n')).toHaveLength(1);
  }, 90_000);
});

describe('the claim-check codec on a real folder', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'planner-blobs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const big = (n: number) => defaultPayloadConverter.toPayload({ blob: 'x'.repeat(n) });
  const filesIn = (d: string): string[] => readdirSync(d, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);

  it('keeps small payloads inline and round-trips large ones through one content-addressed file', async () => {
    const codec = new ClaimCheckCodec(new FolderBlobStore(dir), { offloadBytes: 1024 });
    const small = defaultPayloadConverter.toPayload({ ok: true });
    const large = big(200_000);
    const [s1, l1] = await codec.encode([small, large]);
    expect(s1).toBe(small);
    expect(isReference(l1!)).toBe(true);
    expect(Buffer.from(l1!.metadata!.encoding!).toString()).toBe(CLAIM_CHECK_ENCODING);
    expect(l1!.data!.length).toBeLessThan(400);
    // A retry stores nothing new, and no temporary file is left behind.
    const [l2] = await codec.encode([big(200_000)]);
    expect(Buffer.from(l2!.data!).equals(Buffer.from(l1!.data!))).toBe(true);
    expect(filesIn(dir)).toHaveLength(1);
    expect(filesIn(dir)[0]).toMatch(/^[0-9a-f]{64}$/);
    const [back] = await codec.decode([l1!]);
    expect(defaultPayloadConverter.fromPayload(back!)).toEqual({ blob: 'x'.repeat(200_000) });
    expect(back!.metadata).toEqual(large.metadata);
  });

  it('refuses a payload over the hard cap, and a store that cannot be written, without retries', async () => {
    const capped = new ClaimCheckCodec(new FolderBlobStore(dir), { offloadBytes: 1024, maxBytes: 100_000 });
    const tooLarge = await capped.encode([big(200_000)]).catch((e: unknown) => e);
    expect(tooLarge).toBeInstanceOf(ApplicationFailure);
    expect(tooLarge).toMatchObject({ type: 'PayloadTooLarge', nonRetryable: true, message: expect.stringContaining('PLANNER_PAYLOAD_MAX_BYTES') });

    const notADir = join(dir, 'file');
    writeFileSync(notADir, 'not a folder');
    const unwritable = new ClaimCheckCodec(new FolderBlobStore(notADir), { offloadBytes: 1024 });
    const failed = await unwritable.encode([big(2048)]).catch((e: unknown) => e);
    expect(failed).toMatchObject({ type: 'BlobStoreWriteFailed', nonRetryable: true, message: expect.stringContaining(notADir) });
  });

  it('says which blob is missing or corrupt when a reference cannot be read back', async () => {
    const codec = new ClaimCheckCodec(new FolderBlobStore(dir), { offloadBytes: 1024 });
    const [ref] = await codec.encode([big(4096)]);
    const elsewhere = new ClaimCheckCodec(new FolderBlobStore(join(dir, 'other')), { offloadBytes: 1024 });
    await expect(elsewhere.decode([ref!])).rejects.toMatchObject({ type: 'BlobUnreadable', message: expect.stringMatching(/blob [0-9a-f]{64} is not in the blob store.*PLANNER_BLOB_DIR/) });
    const [name] = filesIn(dir);
    writeFileSync(join(dir, name!.slice(0, 2), name!), 'tampered');
    await expect(codec.decode([ref!])).rejects.toMatchObject({ type: 'BlobUnreadable', message: expect.stringContaining('corrupt') });
  });
});

itReplaysItsHistories(suite);
