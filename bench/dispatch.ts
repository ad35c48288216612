// Benchmark: dispatch latency of the embedded dev server, with and without DISPATCH_TUNING
// (deploy/dev/dev-server.ts). Times start -> result of a workflow of ACTIVITIES no-op activities
// (2 * ACTIVITIES + 1 dispatches: workflow tasks and activities) over RUNS runs per variant, and
// of a workflow of 3 timers of 10 ms (timer queue) over 10 runs.
//   npx tsx bench/dispatch.ts              # DISPATCH_RUNS (50), DISPATCH_ACTIVITIES (3)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { connectClient, connectWorker, temporalTarget } from '../runtime/temporal-connection';
import { Runtime, Worker, DefaultLogger } from '@temporalio/worker';
import { DISPATCH_TUNING, startDevServer, type DynamicConfig } from '../deploy/dev/dev-server';

const RUNS = Number(process.env.DISPATCH_RUNS ?? 50);
const ACTIVITIES = Number(process.env.DISPATCH_ACTIVITIES ?? 3);
const TIMERS = 3;
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/** Per workflow task and activity of one run, the time between its scheduled and started events. */
async function scheduledToStarted(client: Client, workflowId: string): Promise<number[]> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduledAt = new Map<number, number>();
  const gaps: number[] = [];
  for (const e of events) {
    const id = Number(e.eventId);
    if (e.workflowTaskScheduledEventAttributes || e.activityTaskScheduledEventAttributes) scheduledAt.set(id, ms(e.eventTime));
    const started = e.workflowTaskStartedEventAttributes ?? e.activityTaskStartedEventAttributes;
    if (started) gaps.push(ms(e.eventTime) - (scheduledAt.get(Number(started.scheduledEventId)) ?? NaN));
  }
  return gaps;
}

async function measure(name: string, tuning: DynamicConfig): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dispatch-'));
  const server = await startDevServer({ dbFile: join(dir, 'temporal.sqlite'), uiPort: false, dispatchTuning: tuning });
  try {
    const connection = await connectWorker(temporalTarget({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace }, {}));
    const worker = await Worker.create({
      connection,
      taskQueue: 'dispatch',
      workflowsPath: require.resolve('./dispatch-workflow'),
      activities: { noop: async () => undefined },
    });
    const client = new Client({ connection: await connectClient(temporalTarget({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace }, {})) });
    const run = async (): Promise<void> => {
      const times: number[] = [];
      for (let i = 0; i < RUNS + 5; i++) {
        const t0 = performance.now();
        await client.workflow.execute('DispatchWorkflow', { taskQueue: 'dispatch', workflowId: `dispatch-${i}`, args: [ACTIVITIES] });
        if (i >= 5) times.push(performance.now() - t0); // the first runs warm caches and connections
      }
      const p50 = pct(times, 50);
      const perDispatch = p50 / (2 * ACTIVITIES + 1);
      const gaps = await scheduledToStarted(client, `dispatch-${RUNS + 4}`);
      console.log(`${name.padEnd(38)} scheduled->started in the last run: ${gaps.map((g) => g.toFixed(1)).join(', ')} ms`);
      console.log(`${name.padEnd(38)} p50 ${p50.toFixed(1)} ms  p90 ${pct(times, 90).toFixed(1)} ms  max ${Math.max(...times).toFixed(1)} ms  ~${perDispatch.toFixed(1)} ms per dispatch`);
    };
    // Timers: TIMERS timers of 10 ms in a row, each fired by the timer queue.
    const timers = async (): Promise<void> => {
      const timerRuns: number[] = [];
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        await client.workflow.execute('TimerWorkflow', { taskQueue: 'dispatch', workflowId: `timers-${i}`, args: [TIMERS] });
        timerRuns.push(performance.now() - t0);
      }
      console.log(`${name.padEnd(38)} ${TIMERS} timers of 10 ms: p50 ${pct(timerRuns, 50).toFixed(1)} ms`);
    };
    await worker.runUntil(async () => {
      await run();
      await timers();
    });
    await client.connection.close();
    await connection.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  console.log(`${RUNS} runs of a workflow with ${ACTIVITIES} no-op activities (${2 * ACTIVITIES + 1} dispatches)`);
  await measure('server defaults', {});
  const keys = Object.keys(DISPATCH_TUNING);
  for (const key of keys) await measure(`only ${key.replace('history.', '')}`, { [key]: DISPATCH_TUNING[key]! });
  for (const key of keys) await measure(`all but ${key.replace('history.', '')}`, Object.fromEntries(Object.entries(DISPATCH_TUNING).filter(([k]) => k !== key)));
  await measure('DISPATCH_TUNING', DISPATCH_TUNING);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
