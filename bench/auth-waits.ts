// AUTH_REQUIRED waits on one worker, watched by streams (the default) against the baseline of
// GetTask polling, in the same run: time for all tasks to be waiting, worker memory per wait,
// requests the agent saw during the wait, and approval-to-completion latency; poll/stream ratios.
import { startDelegatedTask } from '../client/delegated-task';
import { startDeployer } from '../demo/agents';
import { rssMiB, startWorker, type BenchEnv } from './lib/env';
import { dist, pool, size, sleep, until, type Record } from './lib/runner';

const MODES = ['stream', 'poll'] as const;
type Mode = (typeof MODES)[number];

interface Figures {
  mode: Mode;
  toWaitingS: number;
  perWaitKiB: number;
  warmRss: number;
  waitingRss: number;
  requestsPerWaitPerMin: number;
  latencies: number[];
}

export async function runAuthWaits(env: BenchEnv, record: Record): Promise<void> {
  const n = size('BENCH_TASKS', 24, 5);
  const holdMs = size('BENCH_HOLD_MS', 4_000, 2000);
  // Below the number of waits, so the memory slope is what a wait costs past the workflow cache.
  const cache = size('BENCH_CACHE', 20, 5);
  const approvers = 20;
  const deployer = await startDeployer();
  env.bot.onAlert = () => undefined;
  const results: Figures[] = [];
  try {
    for (const mode of MODES) {
      const queue = `bench-${mode}`;
      const worker = await startWorker(env, queue, { PLANNER_MAX_CACHED_WORKFLOWS: String(cache) });
      const run = async (count: number, planId: string) => {
        const handles = await pool(Array.from({ length: count }, (_, i) => i), 20, (i) =>
          startDelegatedTask(env.client, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: `Deploy build 2026.10.06-${i} to staging` }, planId, policies: { watch: { mode } } }, { taskQueue: queue }),
        );
        // Waiting for real: the watch is established and the operator alerted.
        await until(`${count} alerted waits (${mode})`, () => env.bot.alerts.filter((a) => a.planId === planId).length >= count, 300_000, 100);
        return { handles, planId };
      };
      // Approvals go out `approvers` at a time, so latency is about noticing one, not a burst's queue.
      const finish = async ({ handles, planId }: Awaited<ReturnType<typeof run>>): Promise<number[]> => {
        const taskOf = new Map(env.bot.alerts.filter((a) => a.planId === planId).map((a) => [a.workflowId, a.taskId]));
        return pool(handles, approvers, async (h) => {
          const at = Date.now();
          await deployer.approve(taskOf.get(h.workflowId)!);
          await h.result();
          return Date.now() - at;
        });
      };
      try {
        await finish(await run(5, `auth-warmup-${mode}-${Date.now()}`));
        const warmRss = rssMiB(worker.pid);
        const t0 = Date.now();
        const waiting = await run(n, `auth-${mode}-${Date.now()}`);
        const toWaitingS = (Date.now() - t0) / 1000;
        const before = deployer.log.requests.length;
        await sleep(holdMs);
        const during = deployer.log.requests.length - before;
        const waitingRss = rssMiB(worker.pid);
        const latencies = await finish(waiting);
        // RSS rarely shrinks, so this is an upper bound on what one wait costs.
        results.push({ mode, toWaitingS, warmRss, waitingRss, perWaitKiB: ((waitingRss - warmRss) * 1024) / n, requestsPerWaitPerMin: during / n / (holdMs / 60_000), latencies });
      } finally {
        await worker.stop();
      }
    }
  } finally {
    await deployer.close();
  }
  const [s, p] = results as [Figures, Figures];
  const section = 'auth waits: stream (planner column) vs poll (baseline column)';
  const note = `${n} waits, cache ${cache}`;
  record.add({ section, metric: 'all waiting after', unit: 's', planner: s.toWaitingS, baseline: p.toWaitingS, note });
  record.add({ section, metric: 'worker RSS per wait (upper bound)', unit: 'KiB', planner: s.perWaitKiB, baseline: p.perWaitKiB });
  record.add({ section, metric: 'agent requests while waiting', unit: '/wait/min', planner: s.requestsPerWaitPerMin, baseline: p.requestsPerWaitPerMin });
  record.add({ section, metric: 'approve → completed p50', unit: 'ms', planner: dist(s.latencies).p50, baseline: dist(p.latencies).p50 });
  record.add({ section, metric: 'approve → completed p95', unit: 'ms', planner: dist(s.latencies).p95, baseline: dist(p.latencies).p95 });
  record.data.authWaits = results;
}
