// The cluster's own PostgreSQL instance: a data folder under the cluster folder, its own port on
// loopback, password authentication (scram-sha-256) for the `temporal` superuser, no Unix socket;
// never the machine's default cluster. PostgreSQL refuses to run as root, so as root the server
// runs as the `postgres` user (the folder is handed to it).
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DB_USER } from './settings';

const exec = promisify(execFile);

export interface PostgresPaths {
  /** Owned by the server's user: the data folder and the log live here. */
  root: string;
  data: string;
  log: string;
}

export const postgresPaths = (clusterDir: string): PostgresPaths => {
  const root = reachableByServer(clusterDir) ? join(clusterDir, 'postgres') : outsideRoot(clusterDir);
  return { root, data: join(root, 'data'), log: join(root, 'postgres.log') };
};

/**
 * As root, PostgreSQL runs as the `postgres` user, which cannot enter a private folder (a clone in
 * /root or under a mode-700 temp folder). Then its data lives in /var/tmp/a2a-planner-postgres/<hash
 * of the cluster folder>: the same folder every time for the same cluster, so down and status find it.
 */
function reachableByServer(clusterDir: string): boolean {
  if (process.getuid?.() !== 0) return true;
  let dir = resolve(clusterDir);
  while (!existsSync(dir)) dir = dirname(dir);
  try {
    execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir], { stdio: 'ignore', cwd: '/' });
    return true;
  } catch {
    return dirname(dir) === dir; // nothing to test against: keep the folder as given
  }
}

function outsideRoot(clusterDir: string): string {
  const base = '/var/tmp/a2a-planner-postgres';
  mkdirSync(base, { recursive: true, mode: 0o755 });
  chmodSync(base, 0o755);
  return join(base, createHash('sha256').update(resolve(clusterDir)).digest('hex').slice(0, 12));
}

export function pgBinDir(): string {
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('PostgreSQL not found: pg_config is not on PATH (Debian: apt-get install postgresql-15)');
  }
}

/** The OS user the server runs as: ourselves, or `postgres` when we are root. */
function runAs(): { uid: number; gid: number; name?: string } {
  if (process.getuid?.() !== 0) return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid, name: 'postgres' };
}

async function pgCommand(tool: string, args: string[], timeoutMs = 120_000): Promise<string> {
  const bin = join(pgBinDir(), tool);
  const user = runAs();
  const [cmd, argv] = user.name ? ['runuser', ['-u', user.name, '--', bin, ...args]] : [bin, args];
  try {
    // cwd: a folder the server's user may enter (runuser keeps ours).
    const { stdout, stderr } = await exec(cmd, argv, { timeout: timeoutMs, cwd: '/', env: { ...process.env, LC_ALL: 'C' } });
    return stdout + stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${tool} ${args[0] ?? ''} failed: ${(err.stderr || err.stdout || err.message).trim().slice(-2000)}`);
  }
}

export function isInitialized(paths: PostgresPaths): boolean {
  return existsSync(join(paths.data, 'PG_VERSION'));
}

/** initdb (once) with the `temporal` superuser, then the instance's settings; the password is not stored in the folder. */
export async function initPostgres(paths: PostgresPaths, port: number, password: string): Promise<void> {
  if (isInitialized(paths)) return;
  const user = runAs();
  rmSync(paths.data, { recursive: true, force: true });
  mkdirSync(paths.root, { recursive: true, mode: 0o700 });
  chownSync(paths.root, user.uid, user.gid);
  const pwfile = join(paths.root, '.pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  chownSync(pwfile, user.uid, user.gid);
  try {
    await pgCommand('initdb', ['-D', paths.data, '-U', DB_USER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C']);
  } finally {
    rmSync(pwfile, { force: true });
  }
  appendFileSync(
    join(paths.data, 'postgresql.conf'),
    [
      '',
      '# a2a-planner cluster (deploy/cluster/postgres.ts)',
      "listen_addresses = '127.0.0.1'",
      `port = ${port}`,
      "unix_socket_directories = ''",
      'max_connections = 200',
      '',
    ].join('\n'),
  );
  // Loopback only, password only.
  writeFileSync(join(paths.data, 'pg_hba.conf'), 'host all all 127.0.0.1/32 scram-sha-256\n');
  chownSync(join(paths.data, 'pg_hba.conf'), user.uid, user.gid);
  chmodSync(join(paths.data, 'pg_hba.conf'), 0o600);
}

export async function startPostgres(paths: PostgresPaths): Promise<number> {
  await pgCommand('pg_ctl', ['start', '-D', paths.data, '-l', paths.log, '-w', '-t', '90']);
  const pid = postgresPid(paths);
  if (!pid) throw new Error(`PostgreSQL started but ${paths.data}/postmaster.pid is missing`);
  return pid;
}

export async function stopPostgres(paths: PostgresPaths): Promise<void> {
  if (!postgresPid(paths)) return;
  await pgCommand('pg_ctl', ['stop', '-D', paths.data, '-m', 'fast', '-w', '-t', '60']);
}

export async function restartPostgres(paths: PostgresPaths): Promise<number> {
  await pgCommand('pg_ctl', ['restart', '-D', paths.data, '-l', paths.log, '-m', 'fast', '-w', '-t', '90']);
  return postgresPid(paths)!;
}

/** The postmaster's pid while it runs (from postmaster.pid, checked alive). */
export function postgresPid(paths: PostgresPaths): number | undefined {
  try {
    const pid = Number(readFileSync(join(paths.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

export async function postgresReady(port: number): Promise<boolean> {
  try {
    await exec(join(pgBinDir(), 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-t', '2'], { timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}
