// The cluster's binaries, built once per machine from the Go module proxy into the user cache
// (beside the Temporal CLI's, deploy/dev/temporal-cli.ts): the Temporal server and temporal-sql-tool
// (go.temporal.io/server), and the Temporal UI server (github.com/temporalio/ui-server/v2).
// Nothing is built when the cache holds them.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { goInstall, isExecutable, temporalCacheDir } from '../dev/temporal-cli';
import { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from './settings';

const run = promisify(execFile);
export type Log = (line: string) => void;

function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(temporalCacheDir(env), '..');
}
export const serverCacheDir = (env?: NodeJS.ProcessEnv): string => join(cacheRoot(env), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
export const uiCacheDir = (env?: NodeJS.ProcessEnv): string => join(cacheRoot(env), `temporal-ui-${TEMPORAL_UI_VERSION}`);

export interface ServerBinaries {
  /** go.temporal.io/server/cmd/server */
  server: string;
  /** go.temporal.io/server/cmd/tools/sql (temporal-sql-tool) */
  sqlTool: string;
}

export function findServerBinaries(env?: NodeJS.ProcessEnv): ServerBinaries | undefined {
  const dir = serverCacheDir(env);
  const found = { server: join(dir, 'server'), sqlTool: join(dir, 'sql') };
  return isExecutable(found.server) && isExecutable(found.sqlTool) ? found : undefined;
}

export function findUiServer(env?: NodeJS.ProcessEnv): string | undefined {
  const path = join(uiCacheDir(env), 'server');
  return isExecutable(path) ? path : undefined;
}

/** The server and temporal-sql-tool, built if the cache lacks them. */
export async function ensureServerBinaries(log: Log, timeoutMs = 30 * 60_000): Promise<ServerBinaries> {
  const found = findServerBinaries();
  if (found) return found;
  const v = `v${TEMPORAL_SERVER_VERSION}`;
  await goInstall(`the Temporal server ${v} and temporal-sql-tool`, [`go.temporal.io/server/cmd/server@${v}`, `go.temporal.io/server/cmd/tools/sql@${v}`], serverCacheDir(), log, timeoutMs);
  const built = findServerBinaries();
  if (!built) throw new Error(`go install finished but ${serverCacheDir()} lacks server or sql`);
  return built;
}

/**
 * The Temporal UI server, built if the cache lacks it; undefined (with a line saying why) when the
 * build fails or takes longer than timeoutMs: the cluster runs without a UI then.
 */
export async function ensureUiServer(log: Log, timeoutMs = 20 * 60_000): Promise<string | undefined> {
  const found = findUiServer();
  if (found) return found;
  try {
    await goInstall(`the Temporal UI server v${TEMPORAL_UI_VERSION}`, [`github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`], uiCacheDir(), log, timeoutMs);
  } catch (e) {
    log(`No Temporal UI: ${(e as Error).message.split('\n')[0]} (the dev server's UI, \`npm run temporal\`, shows a dev server only)`);
    return undefined;
  }
  return findUiServer();
}

/** The server module's folder in the Go module cache (schema files and shipped configs), downloaded if missing. */
export async function serverModuleDir(): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', `go.temporal.io/server@v${TEMPORAL_SERVER_VERSION}`], { env: { ...process.env, GOFLAGS: '-mod=mod' }, maxBuffer: 1 << 20 });
  const dir = (JSON.parse(stdout) as { Dir?: string; Error?: string }).Dir;
  if (!dir || !existsSync(join(dir, 'schema'))) throw new Error(`go mod download of go.temporal.io/server@v${TEMPORAL_SERVER_VERSION} gave no module folder: ${stdout.slice(0, 500)}`);
  return dir;
}
