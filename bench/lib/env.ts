// What every benchmark runs on: one Temporal dev server (the embedded default, DISPATCH_TUNING,
// plus a Prometheus endpoint for request and action counts), a prebuilt workflow bundle, the
// planner's worker as a child process (its own pid for RSS and CPU), a client, and a bot that
// answers and approves the instant the planner alerts.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { connectClient, temporalTarget } from '../../worker/temporal-connection';
import { bundleWorkflowCode } from '@temporalio/worker';
import { devServerArgs, freePort, isServing } from '../../scripts/dev-server';
import { ensureTemporalCli } from '../../scripts/temporal-cli';
import { payloadSettings, plannerDataConverter } from '../../payloads/data-converter';
import { loadConfig } from '../../worker/config';
import { ROOT, sleep, until } from './runner';

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
// The dev server, started like scripts/dev-server.ts does, plus --metrics-port.

export interface BenchServer {
  address: string;
  pid: number;
  metricsUrl: string;
  stop(): Promise<void>;
}

export async function startServer(dir: string): Promise<BenchServer> {
  const bin = await ensureTemporalCli((l) => console.error(l));
  const ip = '127.0.0.1';
  const [port, metricsPort] = [await freePort(ip), await freePort(ip)];
  const args = devServerArgs({ dbFile: join(dir, 'temporal.sqlite'), ip, port, uiPort: false, namespace: 'default' });
  args.push('--metrics-port', String(metricsPort));
  const out = openSync(join(dir, 'temporal.log'), 'a');
  const child = spawn(bin, args, { stdio: ['ignore', out, out] });
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const address = `${ip}:${port}`;
  try {
    await until('the dev server', async () => {
      if (child.exitCode !== null) throw new Error(`dev server exited with ${child.exitCode}; see ${dir}/temporal.log`);
      return isServing(address);
    }, 60_000, 200);
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, pid: child.pid!, metricsUrl: `http://${ip}:${metricsPort}/metrics`, stop };
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
  const child = spawn(process.execPath, [...profile, '--require', 'tsx/cjs', join(ROOT, 'worker', 'main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: env.server.address,
      TEMPORAL_NAMESPACE: 'default',
      PLANNER_TASK_QUEUE: taskQueue,
      PLANNER_WORKFLOW_BUNDLE: env.bundle,
      PLANNER_BLOB_DIR: env.blobDir,
      PLANNER_LOG_LEVEL: 'info',
      PLANNER_ALERT_SINKS: 'webhook',
      PLANNER_ALERT_WEBHOOK_URL: env.bot.url,
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not start in 60 s:\n${out}`));
    }, 60_000);
    const onData = (b: Buffer): void => {
      out = (out + b.toString()).slice(-65_536);
      if (out.includes('worker running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${out}`));
    });
  });
  // Keep draining its output (info logs per alert) so the pipe never blocks it.
  child.stdout!.removeAllListeners('data');
  child.stderr!.removeAllListeners('data');
  child.stdout!.resume();
  child.stderr!.on('data', (b: Buffer) => {
    const s = b.toString();
    if (/"level":(50|60)/.test(s)) process.stderr.write(s);
  });
  return {
    pid: child.pid!,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The bot: the planner's alert webhook. Each alert is handed to a handler (answer, approve, count).

export interface Alert {
  at: number;
  kind: string;
  workflowId: string;
  planId?: string;
  agent: string;
  taskId: string;
  text: string;
}

export interface Bot {
  url: string;
  alerts: Alert[];
  /** Called for every alert as it arrives; replace it per benchmark. */
  onAlert: (a: Alert) => void;
  close(): Promise<void>;
}

export async function startBot(): Promise<Bot> {
  const bot: Bot = { url: '', alerts: [], onAlert: () => undefined, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Omit<Alert, 'at'>;
      const alert = { at: Date.now(), ...body };
      bot.alerts.push(alert);
      bot.onAlert(alert);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  bot.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`;
  bot.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return bot;
}

// ---------------------------------------------------------------------------------------------

export interface BenchEnv {
  dir: string;
  server: BenchServer;
  bundle: string;
  blobDir: string;
  client: Client;
  bot: Bot;
  close(): Promise<void>;
}

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m), log() {} };

export async function startEnv(): Promise<BenchEnv> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-planner-bench-'));
  const server = await startServer(dir);
  try {
    const bundle = join(dir, 'bundle.js');
    writeFileSync(bundle, (await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quiet })).code);
    const blobDir = join(dir, 'blobs');
    const connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default' }, {}));
    const dataConverter = plannerDataConverter(payloadSettings(loadConfig({ PLANNER_BLOB_DIR: blobDir })));
    const client = new Client({ connection, namespace: 'default', dataConverter });
    const bot = await startBot();
    return {
      dir,
      server,
      bundle,
      blobDir,
      client,
      bot,
      async close() {
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
