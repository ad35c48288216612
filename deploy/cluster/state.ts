// What a running local cluster is: options resolved from flags and environment, the processes it
// started (pid, command, log), recorded in <dir>/state.json so that `down` stops exactly those.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLUSTER_ENV, DEFAULT_PORTS, MEMBERSHIP_OFFSET, DEFAULT_SERVERS, DEFAULT_WORKERS, PORT_ENV, type ClusterPorts } from './settings';

export interface ClusterOptions {
  /** The cluster folder (default .planner/cluster under the working directory). */
  dir?: string;
  workers?: number;
  servers?: number;
  ports?: Partial<ClusterPorts>;
  pgPassword?: string;
  /** false: no Temporal UI. */
  ui?: boolean;
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

export interface Resolved {
  dir: string;
  workers: number;
  servers: number;
  ports: ClusterPorts;
  ui: boolean;
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

function intFrom(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
  return n;
}

export function resolveOptions(o: ClusterOptions = {}): Resolved {
  const env = o.env ?? process.env;
  const ports = { ...DEFAULT_PORTS };
  for (const key of Object.keys(ports) as Array<keyof ClusterPorts>) {
    ports[key] = o.ports?.[key] ?? intFrom(env, PORT_ENV[key]) ?? ports[key];
  }
  for (const key of ['frontend', 'history', 'matching', 'worker'] as const) {
    // The membership table (cluster_membership.rpc_port) is a smallint.
    if (ports[key] + MEMBERSHIP_OFFSET > 32_767) throw new Error(`the ${key} port ${ports[key]} is too high: its membership port (+${MEMBERSHIP_OFFSET}) must stay below 32768 (${PORT_ENV[key]})`);
  }
  return {
    dir: resolve(o.dir ?? env[CLUSTER_ENV.dir] ?? join(process.cwd(), '.planner', 'cluster')),
    workers: o.workers ?? intFrom(env, CLUSTER_ENV.workers) ?? DEFAULT_WORKERS,
    servers: o.servers ?? intFrom(env, CLUSTER_ENV.servers) ?? DEFAULT_SERVERS,
    ports,
    ui: o.ui ?? env[CLUSTER_ENV.ui] !== 'off',
    log: o.log ?? ((line) => console.log(line)),
    env,
  };
}

/** The database password: given, else the one this cluster was created with, else a new random one (kept 0600). */
export function pgPassword(dir: string, given?: string): string {
  const file = join(dir, 'pg-password');
  if (given) return given;
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const made = randomBytes(18).toString('base64url');
  writeFileSync(file, `${made}\n`, { mode: 0o600 });
  return made;
}

export interface ProcessRecord {
  name: string;
  pid: number;
  /** argv, to recognise the process again (a recycled pid is not ours). */
  argv: string[];
  log: string;
  /** What answers when it runs (for status). */
  url?: string;
}

export interface ClusterState {
  dir: string;
  startedAt: string;
  ports: ClusterPorts;
  frontend: string;
  uiUrl?: string;
  postgres: { data: string; pid?: number; port: number };
  processes: ProcessRecord[];
  /** Why some parts are not running (e.g. no `planner serve` yet). */
  notes: string[];
}

export const statePath = (dir: string): string => join(dir, 'state.json');

export function readState(dir: string): ClusterState | undefined {
  try {
    return JSON.parse(readFileSync(statePath(dir), 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

export function writeState(state: ClusterState): void {
  writeFileSync(statePath(state.dir), `${JSON.stringify(state, null, 2)}\n`);
}

/** Starts a detached process (it outlives `cluster up`), output appended to its log file. */
export function startProcess(name: string, argv: string[], o: { log: string; env: NodeJS.ProcessEnv; cwd: string; url?: string }): ProcessRecord {
  const out = openSync(o.log, 'a');
  const child = spawn(argv[0]!, argv.slice(1), { cwd: o.cwd, env: o.env, stdio: ['ignore', out, out], detached: true });
  closeSync(out);
  child.unref();
  if (child.pid === undefined) throw new Error(`${name} did not start (${argv[0]})`);
  return { name, pid: child.pid, argv, log: o.log, ...(o.url ? { url: o.url } : {}) };
}

/** True when pid runs the command recorded for it. */
export function isOurs(rec: ProcessRecord): boolean {
  try {
    process.kill(rec.pid, 0);
  } catch {
    return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    // Zombies have an empty cmdline; otherwise the argv must match.
    return cmdline.length > 0 && cmdline.join(' ') === rec.argv.join(' ');
  } catch {
    return true; // no /proc (not Linux): trust the pid
  }
}

/** SIGTERM, then SIGKILL after graceMs; resolves when the process is gone. */
export async function stopProcess(rec: ProcessRecord, graceMs = 10_000): Promise<boolean> {
  if (!isOurs(rec)) return false;
  process.kill(rec.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isOurs(rec)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (isOurs(rec)) process.kill(rec.pid, 'SIGKILL');
  while (isOurs(rec)) await new Promise((r) => setTimeout(r, 50));
  return true;
}
