// Benchmark: many delegated tasks waiting in AUTH_REQUIRED on one worker, watched by streams
// (the default) against the baseline of GetTask polling, in the same run.
// Prints, per mode: time for all tasks to be waiting, worker memory per wait, requests the agent
// saw during the wait, and approval-to-completion latency; then the poll/stream ratios.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { connectClient, temporalTarget } from '../worker/temporal-connection';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startDelegatedTask } from '../client/delegated-task';
import { startDevServer } from '../scripts/dev-server';
import { startDeployer } from '../demo/agents';
import { startChildWorker, uniqueQueue } from '../test/harness/planner';
import { startAlertSink } from '../test/support/alert-sink';

const N = Number(process.env.BENCH_TASKS ?? 200);
const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 20_000);
// Below the number of waits, so the memory slope is what a wait costs past the workflow cache.
const CACHE = Number(process.env.BENCH_CACHE ?? 50);
const APPROVERS = 20;
const MODES = ['stream', 'poll'] as const;
type Mode = (typeof MODES)[number];

interface Figures {
  mode: Mode;
  toWaitingS: number;
  perWaitKiB: number;
  warmRss: number;
  waitingRss: number;
  requestsPerWaitPerMin: number;
  p50ms: number;
  p95ms: number;
}

const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-planner-bench-'));
  const server = await startDevServer({ dbFile: join(dir, 'temporal.sqlite'), uiPort: false, logFile: join(dir, 'temporal.log') });
  const bundlePath = join(dir, 'bundle.js');
  writeFileSync(bundlePath, (await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quiet })).code);
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.PLANNER_WORKFLOW_BUNDLE = bundlePath;
  const connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace }, {}));
  const client = new Client({ connection });
  const deployer = await startDeployer();
  const sink = await startAlertSink();
  const results: Figures[] = [];
  try {
    for (const mode of MODES) {
      const queue = uniqueQueue(`bench-${mode}`);
      const worker = await startChildWorker(queue, {
        PLANNER_ALERT_SINKS: 'webhook',
        PLANNER_ALERT_WEBHOOK_URL: sink.url,
        PLANNER_MAX_CACHED_WORKFLOWS: String(CACHE),
      });
      const run = async (count: number, planId: string) => {
        const handles = [];
        for (let i = 0; i < count; i++) {
          const input = { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: `Deploy build 2026.10.06-${i} to staging` }, planId, policies: { watch: { mode } } };
          handles.push(await startDelegatedTask(client, input, { taskQueue: queue }));
        }
        // Waiting for real: the watch is established and the operator alerted.
        const alerted = () => sink.alerts.filter((a) => a.body.planId === planId).length;
        await until(`${count} alerted waits (${mode})`, async () => alerted() >= count);
        return handles;
      };
      // Approvals go out APPROVERS at a time, so latency is about noticing one, not a burst's queue.
      const finish = async (handles: Awaited<ReturnType<typeof run>>): Promise<number[]> => {
        const taskOf = new Map(sink.alerts.map((a) => [a.body.workflowId, a.body.taskId]));
        const latencies: number[] = [];
        const queue = [...handles];
        const approver = async (): Promise<void> => {
          for (let h = queue.shift(); h; h = queue.shift()) {
            const at = Date.now();
            await deployer.approve(taskOf.get(h.workflowId)!);
            await h.result();
            latencies.push(Date.now() - at);
          }
        };
        await Promise.all(Array.from({ length: APPROVERS }, approver));
        return latencies;
      };
      try {
        // Warm up (workflow bundle, caches, connections) so the memory figure is about waits.
        await finish(await run(5, `warmup-${mode}-${Date.now()}`));
        const warmRss = rssMiB(worker.child.pid!);
        const t0 = Date.now();
        const handles = await run(N, `bench-${mode}-${Date.now()}`);
        const toWaitingS = (Date.now() - t0) / 1000;

        const before = deployer.log.requests.length;
        await sleep(HOLD_MS);
        const during = deployer.log.requests.length - before;
        const waitingRss = rssMiB(worker.child.pid!);
        // RSS rarely shrinks, so this is an upper bound on what one wait costs.
        const perWaitKiB = ((waitingRss - warmRss) * 1024) / N;

        const latencies = await finish(handles);
        results.push({
          mode,
          toWaitingS,
          perWaitKiB,
          warmRss,
          waitingRss,
          requestsPerWaitPerMin: during / N / (HOLD_MS / 60_000),
          p50ms: pct(latencies, 50),
          p95ms: pct(latencies, 95),
        });
      } finally {
        await worker.kill('SIGTERM');
      }
    }
  } finally {
    await deployer.close();
    await sink.close();
    await connection.close();
    await server.stop();
  }

  console.log(`\n${N} delegated tasks waiting in AUTH_REQUIRED on one worker (workflow cache ${CACHE}, hold ${HOLD_MS / 1000} s, ${APPROVERS} approvals at a time)\n`);
  console.log('mode    all waiting after   worker RSS warm -> waiting (per wait, at most)   agent requests while waiting   approve -> completed (p50 / p95)');
  for (const r of results) {
    console.log(
      `${r.mode.padEnd(7)} ${r.toWaitingS.toFixed(1).padStart(8)} s          ${r.warmRss.toFixed(0).padStart(5)} -> ${r.waitingRss.toFixed(0).padStart(5)} MiB (${r.perWaitKiB.toFixed(0).padStart(5)} KiB)          ${r.requestsPerWaitPerMin.toFixed(2).padStart(6)} /wait/min              ${r.p50ms} ms / ${r.p95ms} ms`,
    );
  }
  const [s, p] = results as [Figures, Figures];
  console.log(
    `\npoll / stream ratios: requests while waiting ${ratio(p.requestsPerWaitPerMin, s.requestsPerWaitPerMin)}, ` +
      `p50 approval latency ${ratio(p.p50ms, s.p50ms)}, p95 ${ratio(p.p95ms, s.p95ms)}`,
  );
}

const ratio = (a: number, b: number): string => (b === 0 ? (a === 0 ? '1.0x' : `${a.toFixed(2)} vs 0 (stream sends none)`) : `${(a / b).toFixed(1)}x`);
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m), log() {} };

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
