// `npm run bench`: the project's performance record. Starts its own dev server, the planner's
// worker and loopback agents, runs each benchmark (BENCH_ONLY=seed,resume,... picks some), prints
// a markdown table, writes bench/results/<date>-<commit>.json and draws docs/bench-*.svg.
import { startEnv, startWorker, type BenchWorker } from './lib/env';
import { loadavg } from 'node:os';
import { machine, Record, size, writeResults } from './lib/runner';
import { probeSpeed } from './lib/machine-speed';
import { drawCharts } from './charts';
import { runSeed } from './seed';
import { runResume } from './resume';
import { runParked } from './parked';
import { runCost } from './cost';
import { runThroughput } from './throughput';
import { runAuthWaits } from './auth-waits';
import { runCli } from './cli';
import { startFloor, type Floor } from './floor/run';

const SECTIONS = ['seed', 'resume', 'cost', 'throughput', 'parked', 'auth-waits', 'cli'] as const;
type Section = (typeof SECTIONS)[number];

/**
 * The default sizes (each times BENCH_SCALE, each with its own override), chosen so that the
 * default run takes about 6 minutes on a quiet 2-core machine; the progress line names them.
 */
export const SIZES: { [s in Section]: () => string } = {
  seed: () => `${size('BENCH_SEED_RUNS', 30, 3)} runs per side (the seed plan and the floor's scenario and plans: half each) at ${process.env.BENCH_SEED_WORK_MS ?? '200,0'} ms of work`,
  resume: () => `${size('BENCH_RESUME_EVENTS', 200, 10)} events of each kind, ${size('BENCH_RESUME_CONCURRENCY', 8, 1)} at a time`,
  cost: () => '3 single tasks, 3 quiet weeks compressed 60,000×',
  throughput: () => `${size('BENCH_TPUT_WINDOWS', 1, 1)} window(s) of ${size('BENCH_TPUT_TASKS', 150, 20)}+ tasks at 20 and 200 in flight`,
  parked: () => `${size('BENCH_PARKED', 500, 10)} tasks, held ${size('BENCH_PARKED_HOLD_S', 10, 5)} s`,
  'auth-waits': () => `${size('BENCH_TASKS', 24, 5)} waits per mode, held ${size('BENCH_HOLD_MS', 4000, 2000)} ms`,
  cli: () => `${size('BENCH_CLI_RUNS', 15, 3)} runs each of node -e 0, planner --help and planner inbox`,
};

// The SDK's agent server logs each error it answers (with a stack); keep the bench's output readable.
const printError = console.error.bind(console);
let agentErrors = 0;
console.error = (...args: unknown[]): void => {
  if (typeof args[0] === 'string' && /^(Pre-stream error|Error in|Error processing)/.test(args[0])) {
    agentErrors++;
    return;
  }
  printError(...args);
};

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY ? (process.env.BENCH_ONLY.split(',') as Section[]) : [...SECTIONS];
  for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`BENCH_ONLY: unknown section ${s} (known: ${SECTIONS.join(', ')})`);
  const m = machine();
  const record = new Record();
  const t0 = Date.now();
  record.speed.push({ at: 'start', ms: probeSpeed() });
  console.error(`bench: ${m.cpus} × ${m.cpuModel}, ${m.memGiB} GiB, load ${m.loadavgAtStart.join(' ')}, speed ${record.speed[0]!.ms} ms, commit ${m.commit}, BENCH_SCALE ${m.scale}`);
  const env = await startEnv();
  const queue = 'bench';
  let worker: BenchWorker | undefined;
  let floor: Floor | undefined;
  // A hard bound on the whole run (each wait inside has its own, but a result() can wait forever):
  // past it, the worker and the dev server are killed and the run fails.
  const limitS = Number(process.env.BENCH_TIMEOUT_S ?? Math.max(1800, 1800 * Math.min(10, Math.max(1, Number(process.env.BENCH_SCALE ?? 1)))));
  const watchdog = setTimeout(() => {
    printError(`bench: still running after ${limitS} s (BENCH_TIMEOUT_S); stopping the worker and the dev server`);
    for (const pid of [worker?.pid, floor?.pid, env.server.pid]) if (pid) try { process.kill(pid, 'SIGKILL'); } catch { /* gone already */ }
    process.exit(2);
  }, limitS * 1000);
  watchdog.unref();
  console.error(`bench: [${((Date.now() - t0) / 1000).toFixed(0)} s] dev server, workflow bundle, API and bot ready`);
  try {
    worker = await startWorker(env, queue);
    // The floor's worker (bench/floor/), for the sections that measure the floor beside the planner.
    if (only.some((s) => s === 'seed' || s === 'resume' || s === 'throughput')) floor = await startFloor(env);
    const run = async (name: Section, fn: () => Promise<void>): Promise<void> => {
      if (!only.includes(name)) return;
      const t = Date.now();
      const elapsed = (): string => `${((Date.now() - t0) / 1000).toFixed(0)} s`;
      console.error(`bench: [${elapsed()}] ${name}: ${SIZES[name]()}...`);
      await fn();
      record.timings[name] = (Date.now() - t) / 1000;
      record.speed.push({ at: name, ms: probeSpeed() });
      console.error(`bench: [${elapsed()}] ${name} done in ${record.timings[name]!.toFixed(0)} s (load ${loadavg()[0]!.toFixed(1)}, speed ${record.speed.at(-1)!.ms} ms)`);
    };
    const [w, f] = [worker, floor];
    await run('seed', () => runSeed(env, record, queue, f!));
    await run('resume', () => runResume(env, record, queue, f!));
    await run('throughput', () => runThroughput(env, record, queue, w, f!));
    // The floor stops before the sections that need the server to themselves: its idle long polls
    // go on at the server up to a minute after its worker (in its own namespace, so out of the
    // request counts either way); the cost section (no load, actions only) runs first.
    await floor?.stop();
    floor = undefined;
    await run('cost', () => runCost(env, record, queue));
    await run('parked', async () => void (worker = await runParked(env, record, queue, w)));
    await worker.stop();
    worker = undefined;
    await run('auth-waits', () => runAuthWaits(env, record));
    await run('cli', () => runCli(record, env.server.address));
  } finally {
    await floor?.stop();
    await worker?.stop();
    await env.close();
    clearTimeout(watchdog);
  }
  record.timings.total = (Date.now() - t0) / 1000;
  const speeds = record.speed.map((x) => x.ms);
  record.add({
    section: '0 machine',
    metric: 'speed: a fixed CPU workload (SHA-256 chained 20,000 times, median of 9) before the first section and after each',
    unit: 'ms',
    planner: `${Math.min(...speeds)}–${Math.max(...speeds)} ms`,
    note: `${record.speed.map((x) => `${x.at} ${x.ms}`).join(', ')}; 17–25 ms at this machine's fastest (bench/lib/machine-speed.ts)`,
  });
  const path = writeResults(record, m);
  await drawCharts(record);
  console.log(`\n## a2a-planner benchmarks (${new Date().toISOString().slice(0, 16)}Z, commit ${m.commit}, ${m.cpus} CPUs, BENCH_SCALE ${m.scale}, ${record.timings.total.toFixed(0)} s)\n`);
  console.log(record.markdown());
  console.log(`\nresults: ${path}${agentErrors ? ` (the agents answered ${agentErrors} requests with an error, e.g. SubscribeToTask on a finished task)` : ''}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
