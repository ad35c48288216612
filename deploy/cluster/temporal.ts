// The Temporal side of a local cluster: schema set-up by temporal-sql-tool, the four services as
// separate processes, the namespace and the planner's search attributes (through the CLI binary).
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isServing } from '../dev/dev-server';
import { connectClient, temporalTarget } from '../../runtime/temporal-connection';
import type { ServerBinaries } from './binaries';
import { DATABASES, DB_USER, MEMBERSHIP_OFFSET, NAMESPACE, NAMESPACE_RETENTION, SCHEMA_DIRS, SEARCH_ATTRIBUTES, SQL_PLUGIN, type TemporalService } from './settings';
import { startProcess, type ProcessRecord } from './state';

const exec = promisify(execFile);
type Log = (line: string) => void;

async function sqlTool(bin: string, port: number, password: string, database: string, args: string[]): Promise<string> {
  // Connection settings by environment: the password stays off the command line (ps).
  const env = { ...process.env, SQL_PLUGIN: SQL_PLUGIN, SQL_HOST: '127.0.0.1', SQL_PORT: String(port), SQL_USER: DB_USER, SQL_PASSWORD: password, SQL_DATABASE: database };
  try {
    const { stdout, stderr } = await exec(bin, args, { env, timeout: 180_000, maxBuffer: 8 << 20 });
    return stdout + stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    const out = `${err.stdout ?? ''}${err.stderr ?? ''}` || err.message;
    throw Object.assign(new Error(`temporal-sql-tool ${args[0]} (${database}) failed: ${out.trim().slice(-1500)}`), { output: out });
  }
}

/**
 * Creates both databases if missing, then sets up and upgrades their schemas. Every step is
 * idempotent (create-database treats an existing database as done; setup-schema -v 0.0 keeps an
 * existing version table), as in Temporal's own auto-setup.
 */
export async function setupSchemas(bins: ServerBinaries, moduleDir: string, port: number, password: string, log: Log): Promise<void> {
  for (const [key, database] of Object.entries(DATABASES) as Array<[keyof typeof DATABASES, string]>) {
    await sqlTool(bins.sqlTool, port, password, database, ['create-database', '--defaultdb', 'postgres']);
    await sqlTool(bins.sqlTool, port, password, database, ['setup-schema', '-v', '0.0']);
    await sqlTool(bins.sqlTool, port, password, database, ['update-schema', '-d', join(moduleDir, SCHEMA_DIRS[key])]);
    log(`  schema ${database}: up to date (temporal-sql-tool create-database, setup-schema -v 0.0, update-schema -d ${SCHEMA_DIRS[key]})`);
  }
}

/** The internal worker service serves no gRPC: status checks its membership port instead. */
export function startTemporalService(bins: ServerBinaries, configDir: string, service: TemporalService, logDir: string, grpcPort: number): ProcessRecord {
  const answersOn = service === 'worker' ? grpcPort + MEMBERSHIP_OFFSET : grpcPort;
  const argv = [bins.server, '--root', '/', '--config', configDir, '--env', service, '--allow-no-auth', 'start', '--service', service];
  return startProcess(`temporal-${service}`, argv, { log: join(logDir, `temporal-${service}.log`), env: { ...process.env }, cwd: configDir, url: `127.0.0.1:${answersOn}` });
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, isAlive?: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (isAlive && !isAlive()) throw new Error(`${what}: the process exited`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what}: not ready within ${Math.round(timeoutMs / 1000)} s`);
}

export const frontendServing = (address: string): Promise<boolean> => isServing(address);

async function cli(bin: string, args: string[], address: string): Promise<string> {
  const { stdout } = await exec(bin, [...args, '--address', address, '--namespace', NAMESPACE], { timeout: 30_000 });
  return stdout;
}

/** The `default` namespace and the planner's search attributes, with the Temporal CLI; idempotent. */
export async function registerNamespace(temporalCli: string, address: string, log: Log): Promise<void> {
  const exists = await cli(temporalCli, ['operator', 'namespace', 'describe', '-o', 'json'], address).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await retry(() => cli(temporalCli, ['operator', 'namespace', 'create', '--retention', NAMESPACE_RETENTION], address), 'namespace create', 30_000);
    log(`  namespace ${NAMESPACE} registered (retention ${NAMESPACE_RETENTION})`);
  }
  const listed = await retry(() => cli(temporalCli, ['operator', 'search-attribute', 'list', '-o', 'json'], address), 'search-attribute list', 30_000);
  const have = new Set(Object.keys((JSON.parse(listed) as { customAttributes?: Record<string, unknown> }).customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((a) => !have.has(a.name));
  if (missing.length > 0) {
    const args = ['operator', 'search-attribute', 'create', ...missing.flatMap((a) => ['--name', a.name, '--type', a.type])];
    await retry(() => cli(temporalCli, args, address), 'search-attribute create', 30_000);
  }
  log(`  search attributes: ${SEARCH_ATTRIBUTES.map((a) => `${a.name}=${a.type}`).join(', ')}${missing.length ? ` (${missing.length} registered now)` : ''}`);
}

async function retry<T>(fn: () => Promise<T>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`temporal ${what} failed: ${(e as { stderr?: string }).stderr ?? (e as Error).message}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/**
 * How many workers poll `taskQueue` for workflow tasks, as the frontend learns it from matching;
 * an error when the frontend cannot reach matching (its gRPC status and message).
 */
export async function workflowPollers(address: string, taskQueue: string): Promise<number> {
  const connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: NAMESPACE }, {}), { connectTimeout: 2000 });
  try {
    const res = await connection.workflowService.describeTaskQueue({ namespace: NAMESPACE, taskQueue: { name: taskQueue }, taskQueueType: 1 /* WORKFLOW */ });
    return res.pollers?.length ?? 0;
  } finally {
    await connection.close();
  }
}

/**
 * Ready means the planner's work can flow: the frontend reaches matching and `workers` workers poll
 * the queue. A worker that logged "running" may still be unable to poll, and a start or a history
 * read succeeds without matching, so nothing earlier shows this.
 */
export async function waitForPollers(address: string, taskQueue: string, workers: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    try {
      const n = await workflowPollers(address, taskQueue);
      if (n >= workers) return;
      last = `${n} of ${workers} workers poll it`;
    } catch (e) {
      last = `the frontend could not describe it (matching unreachable?): ${(e as Error).message}`;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`task queue ${taskQueue} not ready within ${Math.round(timeoutMs / 1000)} s: ${last}`);
}

/** Whether something accepts a TCP connection at host:port (a service's gRPC or membership port). */
export function tcpAnswers(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port), timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
