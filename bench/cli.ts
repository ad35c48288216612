// 7. How long a `planner` command takes, as a person runs it (node bin/planner.js, a new process
// each time): `planner --help` (loads no Temporal client) and `planner inbox` against a running dev
// server (loads the client, connects, lists), with `node -e 0` as the baseline of any node process.
// Interleaved (baseline, help, inbox; then help, inbox, baseline; ...) so a shared machine's drift
// falls on every side. Run alone with `npx tsx bench/cli.ts` (it starts a dev server of its own),
// or as the `cli` section of `npm run bench`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../deploy/dev/dev-server';
import { dist, interleaveMany, Record, ROOT, size } from './lib/runner';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS file beside the bin, no types
const { compiledCliIsStale } = require('../bin/compiled-cli') as { compiledCliIsStale: () => boolean };

const BIN = join(ROOT, 'bin', 'planner.js');
export const HELP_GOAL_S = 0.5;
export const INBOX_GOAL_S = 1.5;

interface Run {
  seconds: number;
  stdout: string;
}

/** One process, from spawn to exit; a non-zero exit fails the bench (a failing command is not a figure). */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: tmpdir(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(killer);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code === 0) resolve({ seconds, stdout });
      else reject(new Error(`node ${args.join(' ')} exited with ${code}:\n${stderr}`));
    });
  });
}

/** Adds the section's rows to `record`; `address` is a running Temporal server's. */
export async function runCli(record: Record, address: string): Promise<void> {
  if (compiledCliIsStale()) throw new Error('the compiled CLI (dist/) is missing or older than the sources: run `npm run build` (or scripts/ensure-deps.sh) first');
  const runs = size('BENCH_CLI_RUNS', 15, 3);
  const env = { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default' };
  const sides = await interleaveMany(runs, [() => timed(['-e', '0'], env), () => timed([BIN, '--help'], env), () => timed([BIN, 'inbox', '-o', 'json'], env)]);
  const [baseline, help, inbox] = sides.map((rs) => rs.map((r) => r.seconds)) as [number[], number[], number[]];
  const entries = (JSON.parse(sides[2]![0]!.stdout) as unknown[]).length; // -o json: one array
  const [base, h, i] = [dist(baseline), dist(help), dist(inbox)];
  record.data.cli = { runs, baseline, help, inbox, inboxEntries: entries };
  record.add({ section: 'cli', metric: `planner --help, p50 of ${runs}`, unit: 's', planner: h.p50, baseline: base.p50, goal: `≤ ${HELP_GOAL_S} s`, met: h.p50 <= HELP_GOAL_S, note: `max ${h.max.toFixed(2)} s; baseline node -e 0` });
  record.add({
    section: 'cli',
    metric: `planner inbox, p50 of ${runs}`,
    unit: 's',
    planner: i.p50,
    baseline: base.p50,
    goal: `≤ ${INBOX_GOAL_S} s`,
    met: i.p50 <= INBOX_GOAL_S,
    note: `max ${i.max.toFixed(2)} s; ${entries} waiting ${entries === 1 ? 'entry' : 'entries'} listed`,
  });
}

// Alone: a dev server of its own in a temporary folder, the section, its table.
if (require.main === module) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cli-'));
  void (async () => {
    const server = await startDevServer({ dbFile: join(dir, 'temporal.sqlite'), uiPort: false, logFile: join(dir, 'temporal.log'), log: (l) => console.error(l) });
    try {
      const record = new Record();
      await runCli(record, server.address);
      console.log(record.markdown());
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  })().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
