// Starts a Temporal CLI dev server (SQLite file, planner search attributes) and waits until it serves.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { connectClient, temporalTarget } from '../../runtime/temporal-connection';
import { plannerSearchAttributes, SEARCH_ATTRIBUTE_TYPE_NAMES } from '../../workflows/search-attributes';
import { ensureTemporalCli } from './temporal-cli';

/** Dynamic config values as the CLI's `--dynamic-config-value` takes them. */
export type DynamicConfig = Readonly<Record<string, number | string | boolean>>;

export interface DevServerOptions {
  dbFile: string;
  ip?: string;
  port?: number; // 0 or undefined: a free port
  uiPort?: number | false; // false: headless; undefined: a free port
  namespace?: string;
  /** More namespaces to create at start, beside `namespace` (the bench's floor keeps its calls in one of its own). */
  moreNamespaces?: readonly string[];
  logFile?: string; // server's stdout/stderr; default: ignored
  log?: (line: string) => void;
  /** The Temporal CLI binary; default: ensureTemporalCli (found, or installed once into the user cache). */
  temporalCli?: string;
  /** Dynamic config for dispatch latency; default DISPATCH_TUNING ({} gives the server's own defaults). */
  dispatchTuning?: DynamicConfig;
  /** Serve Prometheus metrics (requests, latencies, the `action` metric) on this port (the bench reads them). */
  metricsPort?: number;
  /** The UI decodes payloads through this codec server (`planner serve`'s /codec); the browser calls it. */
  codecEndpoint?: string;
}

export interface DevServer {
  address: string; // host:port for gRPC
  uiUrl?: string;
  namespace: string;
  pid: number;
  /** http://ip:metricsPort/metrics when metricsPort was given. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

export async function freePort(ip = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, ip, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Dynamic config of the embedded server for dispatch latency (measured with `npx tsx bench/dispatch.ts`,
 * figures in docs/architecture.md, "Dispatch latency of the embedded server"). Safe on one process:
 * the dev server has one history shard and no clock skew between hosts. Keys: server v1.29.1
 * common/dynamicconfig/constants.go.
 */
export const DISPATCH_TUNING: DynamicConfig = {
  // Transfer queue, which hands every new workflow task and activity to matching: its reader may
  // poll 20 times a second per shard by default, so each step waited up to 50 ms for its turn.
  'history.transferProcessorMaxPollRPS': 1000,
  // Timer queue (timers, retry backoffs, timeouts): the same 20-a-second cap, hit once timers fire on time.
  'history.timerProcessorMaxPollRPS': 1000,
  // New timer tasks are scheduled no earlier than now + this (default 1s, a margin for clock skew
  // between history hosts): a 10 ms timer fired after about a second.
  'history.timerProcessorMaxTimeShift': '10ms',
  // The activity a workflow task schedules (a watch, an answer's send) comes back in that task's
  // reply to the worker (eager dispatch), instead of a round through matching: the answer reaches
  // its agent in 16 ms instead of 34 (p50, bench §2). Off by default in 1.29.1.
  'system.enableActivityEagerExecution': true,
};

export function devServerArgs(
  o: Required<Pick<DevServerOptions, 'dbFile' | 'ip' | 'namespace'>> &
    Pick<DevServerOptions, 'dispatchTuning' | 'metricsPort' | 'codecEndpoint' | 'moreNamespaces'> & { port: number; uiPort: number | false },
): string[] {
  const args = ['server', 'start-dev', '--ip', o.ip, '--port', String(o.port), '--namespace', o.namespace, '--db-filename', o.dbFile];
  for (const ns of o.moreNamespaces ?? []) args.push('--namespace', ns);
  args.push('--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=OFF');
  for (const key of plannerSearchAttributes) args.push('--search-attribute', `${key.name}=${SEARCH_ATTRIBUTE_TYPE_NAMES[key.type]}`);
  // SDK 1.24 sends worker heartbeats; the server rejects them unless this is on.
  args.push('--dynamic-config-value', 'frontend.WorkerHeartbeatsEnabled=true');
  for (const [key, value] of Object.entries(o.dispatchTuning ?? DISPATCH_TUNING)) args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  args.push('--log-level', 'warn');
  if (o.uiPort === false) args.push('--headless');
  else args.push('--ui-port', String(o.uiPort));
  if (o.uiPort !== false && o.codecEndpoint) args.push('--ui-codec-endpoint', o.codecEndpoint);
  if (o.metricsPort) args.push('--metrics-port', String(o.metricsPort));
  return args;
}

/** The server process ended before it served (a port taken in between, most often): worth another try. */
class DevServerExited extends Error {}

async function waitUntilServing(address: string, child: ChildProcess, timeoutMs: number, logFile?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const why = child.exitCode !== null ? `exited with code ${child.exitCode}` : `was killed by ${child.signalCode}`;
      throw new DevServerExited(`Temporal dev server at ${address} ${why} before it served${logTail(logFile)}`);
    }
    if (await isServing(address)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Temporal dev server at ${address} did not serve within ${timeoutMs} ms${logTail(logFile)}`);
}

/** The last lines of the server's log, for an error that shows why it did not start. */
function logTail(logFile: string | undefined, lines = 15): string {
  if (!logFile || !existsSync(logFile)) return ' (no log kept: pass logFile to see its output)';
  const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  return tail ? `; the end of its log (${logFile}):\n${tail}` : ` (its log ${logFile} is empty)`;
}

/**
 * Starts the server and waits until it serves. Ports left to us are picked free just before the
 * start; another process can take one in between (or the server's own internal ports collide), so
 * an early exit is tried again on fresh ports, three times at most.
 */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const attempts = opts.port ? 1 : 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (!(err instanceof DevServerExited) || attempt >= attempts) throw err;
      (opts.log ?? (() => undefined))(`${err.message.split('\n')[0]}; trying again on other ports (attempt ${attempt + 1} of ${attempts})`);
    }
  }
}

async function startOnce(opts: DevServerOptions): Promise<DevServer> {
  const log = opts.log ?? (() => undefined);
  const bin = opts.temporalCli ?? (await ensureTemporalCli(log));
  const ip = opts.ip ?? '127.0.0.1';
  const port = opts.port || (await freePort(ip));
  const uiPort = opts.uiPort === false ? false : opts.uiPort || (await freePort(ip));
  const namespace = opts.namespace ?? 'default';
  mkdirSync(dirname(opts.dbFile), { recursive: true });
  const out = opts.logFile ? openSync(opts.logFile, 'a') : 'ignore';
  const child = spawn(bin, devServerArgs({ dbFile: opts.dbFile, ip, port, uiPort, namespace, dispatchTuning: opts.dispatchTuning, metricsPort: opts.metricsPort, codecEndpoint: opts.codecEndpoint, moreNamespaces: opts.moreNamespaces }), {
    stdio: ['ignore', out, out],
  });
  if (typeof out === 'number') closeSync(out);
  const address = `${ip}:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilServing(address, child, 60_000, opts.logFile);
  } catch (err) {
    await stop();
    throw err;
  }
  if (child.pid === undefined) throw new Error('Temporal dev server has no pid');
  const metricsUrl = opts.metricsPort ? `http://${ip}:${opts.metricsPort}/metrics` : undefined;
  return { address, uiUrl: uiPort === false ? undefined : `http://${ip}:${uiPort}`, namespace, pid: child.pid, ...(metricsUrl ? { metricsUrl } : {}), stop };
}

/**
 * True when a Temporal frontend answers at `address` within `timeoutMs`; `env` carries the client
 * settings (TLS, API key) for a server that needs them (default: none, a local server).
 */
export async function isServing(address: string, timeoutMs = 1000, env: NodeJS.ProcessEnv = {}): Promise<boolean> {
  try {
    const conn = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default' }, env), { connectTimeout: timeoutMs });
    try {
      await conn.workflowService.getSystemInfo({});
      return true;
    } finally {
      await conn.close();
    }
  } catch {
    return false;
  }
}

// `npm run temporal`: a dev server for local use, on TEMPORAL_ADDRESS (default 127.0.0.1:7233), UI on port+1000.
if (require.main === module) {
  const address = process.env.TEMPORAL_ADDRESS || '127.0.0.1:7233';
  const [ip, port] = address.split(':');
  const dir = `${process.cwd()}/.planner`;
  startDevServer({ dbFile: `${dir}/temporal.sqlite`, logFile: `${dir}/temporal.log`, ip, port: Number(port), uiPort: Number(port) + 1000, log: console.error })
    .then((server) => {
      console.log(`Temporal dev server at ${server.address}, UI at ${server.uiUrl}; Ctrl-C stops it`);
      const stop = (): void => void server.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
