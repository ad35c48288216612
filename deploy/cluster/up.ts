// `planner cluster up`: a local production-shaped stack. PostgreSQL in its own folder, the schema
// by temporal-sql-tool, Temporal's four services as separate processes, the namespace and search
// attributes, the Temporal UI, N planner workers and M `planner serve` replicas, each its own
// process, logs and pids under the cluster folder (state.json).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { ensureTemporalCli } from '../dev/temporal-cli';
import { plannerBundle } from '../../worker/workflow-bundle';
import { SOURCE_ROOT } from '../../runtime/source-root';
import { ensureServerBinaries, ensureUiServer, serverModuleDir, type ServerBinaries } from './binaries';
import { initPostgres, isInitialized, postgresPaths, postgresPid, startPostgres } from './postgres';
import { NAMESPACE, plannerProcessEnv, TEMPORAL_SERVICES, TEMPORAL_UI_VERSION, type TemporalService } from './settings';
import { isOurs, pgPassword, readState, resolveOptions, startProcess, writeState, type ClusterOptions, type ClusterState, type ProcessRecord, type Resolved } from './state';
import { writeTemporalConfig } from './temporal-config';
import { frontendServing, registerNamespace, setupSchemas, startTemporalService, tcpAnswers, waitFor, waitForPollers } from './temporal';

const ROOT = SOURCE_ROOT;

export interface ClusterHandle {
  state: ClusterState;
  binaries: ServerBinaries;
  /** The server's config folder (--config), for restarting a service. */
  configDir: string;
}

/** Builds (or finds) every binary the cluster needs; `scripts/test.sh` calls this before jest. */
export async function ensureClusterBinaries(log: (line: string) => void, opts: { ui?: boolean } = {}): Promise<{ binaries: ServerBinaries; temporalCli: string; ui?: string; moduleDir: string }> {
  const binaries = await ensureServerBinaries(log);
  const temporalCli = await ensureTemporalCli(log);
  const ui = opts.ui === false ? undefined : await ensureUiServer(log);
  const moduleDir = await serverModuleDir();
  return { binaries, temporalCli, ...(ui ? { ui } : {}), moduleDir };
}

export async function clusterUp(opts: ClusterOptions = {}): Promise<ClusterHandle> {
  const o = resolveOptions(opts);
  const { log } = o;
  const started = Date.now();
  mkdirSync(o.dir, { recursive: true, mode: 0o755 });
  const previous = readState(o.dir);
  if (previous && previous.processes.some(isOurs)) {
    throw new Error(`a cluster from ${o.dir} is already running (started ${previous.startedAt}): \`planner cluster status\` shows it, \`planner cluster down\` stops it`);
  }
  log(`Cluster folder ${o.dir}`);
  const { binaries, temporalCli, ui, moduleDir } = await ensureClusterBinaries(log, { ui: o.ui });
  const password = pgPassword(o.dir, opts.pgPassword ?? o.env.PLANNER_CLUSTER_PG_PASSWORD);
  const state: ClusterState = {
    dir: o.dir,
    startedAt: new Date().toISOString(),
    ports: o.ports,
    frontend: `127.0.0.1:${o.ports.frontend}`,
    postgres: { data: postgresPaths(o.dir).data, port: o.ports.postgres },
    processes: [],
    notes: [],
  };
  // Record every process as soon as it starts, so that `down` can stop a half-started cluster.
  const record = (p: ProcessRecord): ProcessRecord => {
    state.processes.push(p);
    writeState(state);
    return p;
  };
  writeState(state);

  // PostgreSQL
  const pg = postgresPaths(o.dir);
  if (!isInitialized(pg)) {
    log(`PostgreSQL: initdb in ${pg.data} (user temporal, password in ${join(o.dir, 'pg-password')})`);
    await initPostgres(pg, o.ports.postgres, password);
  }
  state.postgres.pid = postgresPid(pg) ?? (await startPostgres(pg));
  writeState(state);
  log(`PostgreSQL ${state.postgres.pid ? `pid ${state.postgres.pid}` : ''} on 127.0.0.1:${o.ports.postgres}, log ${pg.log}`);
  await setupSchemas(binaries, moduleDir, o.ports.postgres, password, log);

  // Temporal services
  const configDir = writeTemporalConfig({ ports: o.ports, pgPassword: password, dir: join(o.dir, 'temporal-config') });
  // One at a time, each answering before the next starts: on a new database every service writes
  // the cluster's metadata as it starts, and two doing so at once fail one of them ("duplicate key
  // value violates unique constraint cluster_metadata_info_pkey": seen killing the internal worker).
  for (const service of TEMPORAL_SERVICES) {
    const rec = record(startTemporalService(binaries, configDir, service, o.dir, o.ports[service]));
    await waitFor(`Temporal ${service} (log ${rec.log})`, () => tcpAnswers(rec.url!), 60_000, () => isOurs(rec));
    log(`Temporal ${service}: pid ${rec.pid}, gRPC 127.0.0.1:${o.ports[service]}, log ${rec.log}`);
  }
  const frontend = state.processes.find((p) => p.name === 'temporal-frontend')!;
  await waitFor('the Temporal frontend', () => frontendServing(state.frontend), 120_000, () => isOurs(frontend));
  await registerNamespace(temporalCli, state.frontend, log);

  // Temporal UI
  if (ui) {
    const uiDir = join(o.dir, 'ui');
    mkdirSync(join(uiDir, 'config'), { recursive: true });
    writeFileSync(
      join(uiDir, 'config', 'cluster.yaml'),
      stringify({ temporalGrpcAddress: state.frontend, host: '127.0.0.1', port: o.ports.ui, enableUi: true, defaultNamespace: NAMESPACE, cors: { cookieInsecure: true, allowOrigins: [`http://127.0.0.1:${o.ports.ui}`] }, refreshInterval: '1m', notifyOnNewVersion: false }),
    );
    const rec = record(startProcess('temporal-ui', [ui, '--root', uiDir, '--config', 'config', '--env', 'cluster', 'start'], { log: join(o.dir, 'temporal-ui.log'), env: { ...process.env }, cwd: uiDir, url: `http://127.0.0.1:${o.ports.ui}` }));
    state.uiUrl = rec.url;
    log(`Temporal UI v${TEMPORAL_UI_VERSION}: pid ${rec.pid}, ${rec.url}`);
  } else {
    state.notes.push('no Temporal UI (PLANNER_CLUSTER_UI=off, or the UI server could not be built): see docs/deploy.md');
  }

  // Planner workers, from one prebuilt workflow bundle
  const bundle = join(o.dir, 'workflow-bundle.js');
  if (o.workers > 0) {
    log('Bundling the workflows once for every worker...');
    const { code } = await plannerBundle(quietLogger(log));
    writeFileSync(bundle, code);
  }
  const blobDir = resolve(o.env.PLANNER_BLOB_DIR || join('.planner', 'blobs'));
  const base = { ...o.env, ...plannerProcessEnv({ frontend: state.frontend, blobDir, bundle, uiUrl: state.uiUrl }) };
  const starting: Array<Promise<void>> = [];
  for (let i = 0; i < o.workers; i++) starting.push(startWorker(o, state, record, base, i));
  await Promise.all(starting);
  if (o.workers > 0) await workersPolling(o, state, configDir, binaries, record);

  // `planner serve` replicas
  await startServers(o, state, record, base);
  writeState(state);
  log(`Cluster up in ${Math.round((Date.now() - started) / 1000)} s.`);
  printUrls(state, log);
  return { state, binaries, configDir };
}

/**
 * Waits until every worker polls through the frontend. When the frontend cannot reach matching
 * (seen once: starts and history reads worked, every query and poll failed for minutes), matching
 * is restarted once, as an operator would, before giving up with the logs to read.
 */
async function workersPolling(o: Resolved, state: ClusterState, configDir: string, binaries: ServerBinaries, record: (p: ProcessRecord) => ProcessRecord): Promise<void> {
  const queue = 'planner';
  try {
    await waitForPollers(state.frontend, queue, o.workers, 30_000);
    o.log(`Task queue ${queue}: ${o.workers} workers polling.`);
    return;
  } catch (e) {
    o.log(`${(e as Error).message}; restarting Temporal matching once`);
  }
  const old = state.processes.find((p) => p.name === 'temporal-matching');
  if (old && isOurs(old)) {
    process.kill(old.pid, 'SIGTERM');
    await waitFor('the old matching service to stop', async () => !isOurs(old), 20_000);
  }
  state.processes = state.processes.filter((p) => p.name !== 'temporal-matching');
  record(startTemporalService(binaries, configDir, 'matching', o.dir, o.ports.matching));
  try {
    await waitForPollers(state.frontend, queue, o.workers, 60_000);
  } catch (e) {
    throw new Error(`${(e as Error).message}: read ${join(o.dir, 'temporal-matching.log')}, ${join(o.dir, 'temporal-frontend.log')} and ${join(o.dir, 'worker-*.log')}`);
  }
  o.log(`Task queue ${queue}: ${o.workers} workers polling after matching restarted.`);
}

function quietLogger(log: (l: string) => void): Parameters<typeof plannerBundle>[0] {
  return { trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => log(m), log() {} };
}

export function workerArgv(): string[] {
  // node itself with tsx's loader (not the tsx CLI, which would stand between the pid and the worker).
  return [process.execPath, '--require', 'tsx/cjs', join(ROOT, 'worker', 'main.ts')];
}

/** Starts worker i and waits until it says it runs. */
export async function startWorker(o: Pick<Resolved, 'dir' | 'ports' | 'log'>, state: ClusterState, record: (p: ProcessRecord) => ProcessRecord, base: NodeJS.ProcessEnv, i: number): Promise<void> {
  const metrics = `127.0.0.1:${o.ports.workerMetrics + i}`;
  const logFile = join(o.dir, `worker-${i}.log`);
  const rec = record(
    startProcess(`worker-${i}`, workerArgv(), { log: logFile, cwd: ROOT, env: { ...base, PLANNER_METRICS_ADDRESS: metrics, PLANNER_LOG_LEVEL: base.PLANNER_LOG_LEVEL ?? 'info' }, url: `http://${metrics}/metrics` }),
  );
  await waitFor(`planner worker ${i} (log ${logFile})`, async () => (await readLog(logFile)).includes('worker running'), 120_000, () => isOurs(rec));
  o.log(`Planner worker ${i}: pid ${rec.pid}, metrics ${rec.url}, log ${logFile}`);
}

async function readLog(path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(path, 'utf8').catch(() => '');
}

/** The `planner serve` entry (server/main.ts). */
export function serveEntry(): string | undefined {
  const entry = join(ROOT, 'server', 'main.ts');
  return existsSync(entry) ? entry : undefined;
}

/**
 * The API's operator token (it sees everything): PLANNER_API_OPERATOR_TOKEN when set, else one made
 * for this cluster (kept 0600 in api-token). Callers' tokens come from PLANNER_API_TOKEN, passed on.
 */
export function apiToken(dir: string, env: NodeJS.ProcessEnv): string {
  if (env.PLANNER_API_OPERATOR_TOKEN) return env.PLANNER_API_OPERATOR_TOKEN;
  const file = join(dir, 'api-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const made = randomBytes(24).toString('base64url');
  writeFileSync(file, `${made}\n`, { mode: 0o600 });
  return made;
}

async function startServers(o: Resolved, state: ClusterState, record: (p: ProcessRecord) => ProcessRecord, base: NodeJS.ProcessEnv): Promise<void> {
  if (o.servers === 0) return;
  const entry = serveEntry();
  if (!entry) {
    const note = `--servers ${o.servers} asked, but \`planner serve\` (server/main.ts) is not in this checkout: no API replicas started`;
    state.notes.push(note);
    o.log(note);
    return;
  }
  const token = apiToken(o.dir, o.env);
  // base carries PLANNER_API_TOKEN (the callers') from the environment, when it is set.
  const env = { ...base, PLANNER_HOST: '127.0.0.1', PLANNER_API_OPERATOR_TOKEN: token, PLANNER_PLAN_DIR: resolve(ROOT, o.env.PLANNER_PLAN_DIR || join('demo', 'plans')) };
  await Promise.all(
    Array.from({ length: o.servers }, async (_, i) => {
      const port = o.ports.serve + i;
      const logFile = join(o.dir, `serve-${i}.log`);
      const rec = record(startProcess(`serve-${i}`, [process.execPath, '--require', 'tsx/cjs', entry], { log: logFile, cwd: ROOT, env: { ...env, PLANNER_PORT: String(port) }, url: `http://127.0.0.1:${port}/healthz` }));
      await waitFor(`planner serve ${i} (log ${logFile})`, () => httpAnswers(`http://127.0.0.1:${port}/healthz`), 120_000, () => isOurs(rec));
      o.log(`planner serve ${i}: pid ${rec.pid}, http://127.0.0.1:${port}/v1 (operator token: ${o.env.PLANNER_API_OPERATOR_TOKEN ? 'PLANNER_API_OPERATOR_TOKEN' : join(o.dir, 'api-token')}), log ${logFile}`);
    }),
  );
}

export async function httpAnswers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

export function printUrls(state: ClusterState, log: (l: string) => void): void {
  log('');
  log(`  Temporal frontend  ${state.frontend}   (TEMPORAL_ADDRESS=${state.frontend} npx planner inbox)`);
  if (state.uiUrl) log(`  Temporal UI        ${state.uiUrl}`);
  for (const p of state.processes.filter((x) => x.name.startsWith('worker-') || x.name.startsWith('serve-'))) log(`  ${p.name.padEnd(18)} ${p.url ?? ''}`);
  log(`  PostgreSQL         127.0.0.1:${state.postgres.port} (user temporal)`);
  log(`  logs and state     ${state.dir}`);
  for (const n of state.notes) log(`  note: ${n}`);
}

/** Restarts one Temporal service of a running cluster (recorded in its state). */
export function restartTemporalService(handle: ClusterHandle, service: TemporalService): ProcessRecord {
  const rec = startTemporalService(handle.binaries, handle.configDir, service, handle.state.dir, handle.state.ports[service]);
  handle.state.processes = [...handle.state.processes.filter((p) => p.name !== rec.name), rec];
  writeState(handle.state);
  return rec;
}
