// What every benchmark runs on: one Temporal dev server (the embedded default, DISPATCH_TUNING,
// plus a Prometheus endpoint for request and action counts), a prebuilt workflow bundle, the
// planner's worker as a child process (its own pid for RSS and CPU), a client, the planner's HTTP
// API in this process, and a bot that answers (through the API) and approves the instant the
// planner alerts. The dev server and the worker start the way the tests and `npm run temporal` start them.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { connectClient, temporalTarget } from '../../runtime/temporal-connection';
import pino from 'pino';
import { freePort, startDevServer } from '../../deploy/dev/dev-server';
import { startServer as startApi } from '../../server/main';
import { spawnWorker } from '../../worker/child-process';
import { plannerBundle } from '../../worker/workflow-bundle';
import { payloadSettings, plannerDataConverter } from '../../payloads/data-converter';
import { loadConfig } from '../../runtime/config';
import { startBot, type Bot } from './bot';
import { sleep } from './runner';

export type { Alert, Bot } from './bot';

// ---------------------------------------------------------------------------------------------
// Processes: RSS and CPU from /proc.

const CLK_TCK = 100; // USER_HZ on Linux

export function rssMiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/** User + system CPU time of a process (and its reaped children), in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After "pid (comm) ": state is field 3, utime 14, stime 15, cutime 16, cstime 17 (1-based in proc(5)).
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]));
  return ((utime! + stime! + cutime! + cstime!) * 1000) / CLK_TCK;
}

// ---------------------------------------------------------------------------------------------
// The dev server (deploy/dev/dev-server.ts, as `npm run temporal` and the tests start it), plus a
// Prometheus endpoint for request and action counts.

export interface BenchServer {
  address: string;
  pid: number;
  metricsUrl: string;
  stop(): Promise<void>;
}

/**
 * The floor's namespace (bench/floor/): the server's figures per namespace leave its calls out of
 * the planner's, without a scrape around each of its runs (a scrape costs the server enough that the
 * run after it started up to ~70 ms late).
 */
export const FLOOR_NAMESPACE = 'floor';

export async function startServer(dir: string): Promise<BenchServer> {
  const server = await startDevServer({
    dbFile: join(dir, 'temporal.sqlite'),
    moreNamespaces: [FLOOR_NAMESPACE],
    uiPort: false,
    logFile: join(dir, 'temporal.log'),
    metricsPort: await freePort(),
    log: (l) => console.error(l),
  });
  return { address: server.address, pid: server.pid, metricsUrl: server.metricsUrl!, stop: () => server.stop() };
}

/** The server's Prometheus counters, as `name{labels}` → value. */
export async function scrape(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(url)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

/** Frontend requests of the `default` namespace per operation (e.g. RecordActivityTaskHeartbeat). */
export function frontendRequests(m: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of m) {
    if (!k.startsWith('service_requests{') || !k.includes('service_name="frontend"') || !k.includes('namespace="default"')) continue;
    const op = /operation="([^"]+)"/.exec(k)?.[1] ?? '?';
    out[op] = (out[op] ?? 0) + v;
  }
  return out;
}

/** The server's own count of billable actions (metric `action`, server >= 1.22.3) per action type. */
export function actions(m: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of m) {
    if (!k.startsWith('action{') || !k.includes('namespace="default"')) continue;
    const type = /action_type="([^"]+)"/.exec(k)?.[1] ?? '?';
    out[type] = (out[type] ?? 0) + v;
  }
  return out;
}

/**
 * The server's counters once they stopped moving: its Prometheus reporter lags by a second or two,
 * so read twice, 1.5 s apart, until both reads agree (at most 10 tries).
 */
export async function settled(url: string, pick: (m: Map<string, number>) => Record<string, number>): Promise<Record<string, number>> {
  let last = JSON.stringify(pick(await scrape(url)));
  for (let i = 0; i < 10; i++) {
    await sleep(1500);
    const now = pick(await scrape(url));
    if (JSON.stringify(now) === last) return now;
    last = JSON.stringify(now);
  }
  return JSON.parse(last) as Record<string, number>;
}

export function diff(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}

/** The frontend's own handling time per operation (ms, summed) and call count, `default` namespace. */
export function serverLatency(m: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of m) {
    const which = k.startsWith('service_latency_sum{') ? 'ms' : k.startsWith('service_latency_count{') ? 'n' : undefined;
    if (!which || !k.includes('service_name="frontend"') || !k.includes('namespace="default"')) continue;
    const op = /operation="([^"]+)"/.exec(k)?.[1] ?? '?';
    out[`${op} ${which}`] = (out[`${op} ${which}`] ?? 0) + (which === 'ms' ? v * 1000 : v);
  }
  return out;
}

export const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

// ---------------------------------------------------------------------------------------------
// The worker: worker/main.ts in a child process.

export interface BenchWorker {
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startWorker(env: BenchEnv, taskQueue: string, extra: Record<string, string> = {}): Promise<BenchWorker> {
  // BENCH_WORKER_PROFILE=<dir>: the worker writes V8 CPU profiles (main thread and workflow thread) there on exit.
  const profile = process.env.BENCH_WORKER_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_PROFILE}`] : [];
  const worker = await spawnWorker(
    {
      ...process.env,
      TEMPORAL_ADDRESS: env.server.address,
      TEMPORAL_NAMESPACE: 'default',
      PLANNER_TASK_QUEUE: taskQueue,
      PLANNER_WORKFLOW_BUNDLE: env.bundle,
      PLANNER_BLOB_DIR: env.blobDir,
      PLANNER_LOG_LEVEL: 'info',
      PLANNER_ALERT_SINKS: 'webhook',
      PLANNER_ALERT_WEBHOOK_URL: env.bot.url,
      // The API serves the push webhook: an agent that offers push notifications (§4's push
      // deployer; the others do not) is watched by its pushes.
      PLANNER_WEBHOOK_BASE_URL: env.api.url,
      PLANNER_WEBHOOK_SECRET: env.api.pushSecret,
      ...extra,
    },
    profile,
  );
  // Keep draining its output (info logs per alert) so the pipe never blocks it; show its errors.
  const { child } = worker;
  child.stdout!.removeAllListeners('data');
  child.stderr!.removeAllListeners('data');
  child.stdout!.resume();
  child.stderr!.on('data', (b: Buffer) => {
    const s = b.toString();
    if (/"level":(50|60)/.test(s)) process.stderr.write(s);
  });
  return { pid: worker.pid, child, stop: () => worker.stop() };
}

// ---------------------------------------------------------------------------------------------
// ---------------------------------------------------------------------------------------------

export interface BenchEnv {
  dir: string;
  server: BenchServer;
  bundle: string;
  blobDir: string;
  client: Client;
  bot: Bot;
  /** The planner's HTTP API (`planner serve`, in this process on loopback), where the bot answers. */
  api: { url: string; token: string; pushSecret: string };
  close(): Promise<void>;
}

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m), log() {} };

/** POST to the planner's API; throws with the API's own error message unless it answers 2xx. */
export async function apiPost(env: BenchEnv, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${env.api.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const out = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(out)}`);
  return out;
}

export async function startEnv(): Promise<BenchEnv> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-planner-bench-'));
  const server = await startServer(dir);
  try {
    const bundle = join(dir, 'bundle.js');
    writeFileSync(bundle, (await plannerBundle(quiet)).code);
    const blobDir = join(dir, 'blobs');
    const connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default' }, {}));
    const token = randomBytes(24).toString('hex');
    // The bot answers plans the bench starts through its client: an operator's token sees them.
    const pushSecret = randomBytes(24).toString('hex');
    const config = loadConfig({ PLANNER_BLOB_DIR: blobDir, PLANNER_API_OPERATOR_TOKEN: token, TEMPORAL_ADDRESS: server.address, PLANNER_WEBHOOK_SECRET: pushSecret });
    const client = new Client({ connection, namespace: 'default', dataConverter: plannerDataConverter(payloadSettings(config)) });
    const bot = await startBot();
    const api = await startApi({ config, temporal: client, logger: pino({ level: 'error' }), host: '127.0.0.1', port: 0 });
    return {
      dir,
      server,
      bundle,
      blobDir,
      client,
      bot,
      api: { url: api.url, token, pushSecret },
      async close() {
        await api.close();
        await bot.close();
        await connection.close();
        await server.stop();
        await sleep(100);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** The first run id of a handle returned by a start (the client sets it; the type does not say so). */
export function runIdOf(h: object): string {
  const id = (h as { firstExecutionRunId?: string }).firstExecutionRunId;
  if (!id) throw new Error('handle has no firstExecutionRunId');
  return id;
}
