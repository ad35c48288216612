// Finds the Temporal CLI binary (which carries the dev server), building it once per machine if needed.
// Order: $TEMPORAL_CLI, `temporal` on PATH, the shared user cache, else `go install` into that cache.
import { execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export const TEMPORAL_CLI_VERSION = '1.5.1';

export function temporalCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'a2a-planner', `temporal-${TEMPORAL_CLI_VERSION}`);
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Returns the binary without building anything, or undefined. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.TEMPORAL_CLI) {
    if (!isExecutable(env.TEMPORAL_CLI)) throw new Error(`TEMPORAL_CLI=${env.TEMPORAL_CLI} is not an executable file`);
    return env.TEMPORAL_CLI;
  }
  const cached = join(temporalCacheDir(env), 'temporal');
  return onPath('temporal', env) ?? (isExecutable(cached) ? cached : undefined);
}

function goVersion(): [number, number] | undefined {
  try {
    const v = execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim(); // e.g. go1.26.8
    const m = /^go(\d+)\.(\d+)/.exec(v);
    return m ? [Number(m[1]), Number(m[2])] : undefined;
  } catch {
    return undefined;
  }
}

const HOW_TO_GET_ONE =
  'Install Go >= 1.25 (the CLI is built from its module: ' +
  `go install github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}), ` +
  'or put a `temporal` binary on PATH, or set TEMPORAL_CLI to its path.';

/** Finds the binary or builds it into the shared cache; `log` receives progress lines. */
export async function ensureTemporalCli(log: (line: string) => void = (l) => console.error(l)): Promise<string> {
  const found = findTemporalCli();
  if (found) return found;
  const go = goVersion();
  if (!go) throw new Error(`No Temporal CLI binary found and no Go toolchain to build one. ${HOW_TO_GET_ONE}`);
  if (go[0] < 1 || (go[0] === 1 && go[1] < 25)) {
    throw new Error(`Go ${go.join('.')} is too old to build the Temporal CLI v${TEMPORAL_CLI_VERSION} (needs >= 1.25). ${HOW_TO_GET_ONE}`);
  }
  const dir = temporalCacheDir();
  try {
    await goInstall(`the Temporal CLI v${TEMPORAL_CLI_VERSION}`, [`github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], dir, log, 30 * 60_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${HOW_TO_GET_ONE}`);
  }
  const built = join(dir, 'temporal');
  if (!isExecutable(built)) throw new Error(`go install finished but ${built} is missing. ${HOW_TO_GET_ONE}`);
  return built;
}

/** `go install pkgs` into dir with a progress line every 20 s; rejects after timeoutMs. */
export async function goInstall(what: string, pkgs: string[], dir: string, log: (line: string) => void, timeoutMs: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  log(`Building ${what} into ${dir} (once per machine; takes minutes)...`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', ...pkgs], { env: { ...process.env, CGO_ENABLED: '0', GOBIN: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let downloads = 0;
    let tail = '';
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      downloads += (text.match(/go: downloading/g) ?? []).length;
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const ticker = setInterval(() => log(`  ... still building ${what} (${Math.round((Date.now() - started) / 1000)} s, ${downloads} modules downloaded)`), 20_000);
    const killer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', (err) => {
      clearInterval(ticker);
      clearTimeout(killer);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      clearInterval(ticker);
      clearTimeout(killer);
      if (code === 0) resolve();
      else reject(new Error(signal ? `go install of ${what} did not finish within ${Math.round(timeoutMs / 1000)} s` : `go install of ${what} failed (exit ${code}):\n${tail}`));
    });
  });
  log(`Built ${what} in ${Math.round((Date.now() - started) / 1000)} s.`);
}

if (require.main === module) {
  ensureTemporalCli()
    .then((path) => console.log(path))
    .catch((err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
