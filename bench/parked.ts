// 3. Parked tasks: N delegated tasks waiting at once, half in INPUT_REQUIRED (reviewer's question)
// and half in AUTH_REQUIRED (deployer's approval). Time to park them all (every one alerted), worker
// and server RSS while parked (the memory curve), the server's request load while parked (from its
// Prometheus endpoint: heartbeats, polls), time to resume them all, and that every one completed.
// Approval rounds park on the worker's shared watch (one stream each, one heartbeat for all); then
// the worker is SIGKILLed and a new one started: the time until every approval is subscribed to
// again is the hand-over. BENCH_PARKED_PUSH=1: the deployer offers push notifications, so its
// approval rounds park on push (nothing held by the worker, so nothing to hand over).
import { answerTask, resolveSend, startDelegatedTask } from '../client/delegated-task';
import { startCodeReviewer, startDeployer } from '../demo/agents';
import { DIFF } from './lib/baseline';
import { diff, frontendRequests, rssMiB, scrape, startWorker, sum, type BenchEnv, type BenchWorker } from './lib/env';
import { pool, size, sleep, until, type Record } from './lib/runner';
import { parkedWaitsQuery } from '../workflows/watch-hub/messages';
import { runningAllocator } from '../worker/allocator';
import { loadConfig } from '../runtime/config';
import { tsToMs } from '@temporalio/common/lib/time';

/** The runs that hold the register now (a hub continues as new after its hand-over). */
async function runningHubs(env: BenchEnv, taskQueue: string): Promise<Array<{ workflowId: string; runId: string }>> {
  const runs: Array<{ workflowId: string; runId: string }> = [];
  for await (const wf of env.client.workflow.list({ query: `WorkflowType = 'WatchHubWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue}-hubs'` })) runs.push({ workflowId: wf.workflowId, runId: wf.runId });
  return runs;
}

/** The waits the running watch hubs of this queue hold (their register). */
async function parkedOnHubs(env: BenchEnv, taskQueue: string): Promise<number> {
  let total = 0;
  for (const { workflowId, runId } of await runningHubs(env, taskQueue)) total += await env.client.workflow.getHandle(workflowId, runId).query(parkedWaitsQuery);
  return total;
}

/** Where a dead hub's hand-over spent its time, from its history: seconds after the kill. */
async function handOverSteps(env: BenchEnv, hubs: Array<{ workflowId: string; runId: string }>, killedAt: number): Promise<string> {
  const steps: string[] = [];
  for (const { workflowId, runId } of hubs) {
    const events = (await env.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    const at = (e: (typeof events)[number] | undefined): string => (e?.eventTime ? ((tsToMs(e.eventTime) - killedAt) / 1000).toFixed(1) : '?');
    const timedOut = events.findIndex((e) => e.activityTaskTimedOutEventAttributes || e.activityTaskFailedEventAttributes);
    if (timedOut < 0) {
      steps.push(`hub of ${events.length} events: its hold did not time out`);
      continue;
    }
    const started = events.slice(timedOut).find((e) => e.workflowTaskStartedEventAttributes);
    const handOver = events.slice(timedOut).find((e) => e.activityTaskScheduledEventAttributes);
    steps.push(`hub of ${timedOut} events: hold timed out ${at(events[timedOut])} s, replayed ${at(started)} s, hand-over scheduled ${at(handOver)} s`);
  }
  return steps.join('; ');
}

export interface MemorySample {
  s: number;
  phase: 'parking' | 'parked' | 'resuming';
  parked: number;
  workerMiB: number;
  serverMiB: number;
}

/** Returns the worker left running (a new one, when the first was killed). */
export async function runParked(env: BenchEnv, record: Record, taskQueue: string, first: BenchWorker): Promise<BenchWorker> {
  let worker = first;
  const n = size('BENCH_PARKED', 500, 10);
  const holdS = size('BENCH_PARKED_HOLD_S', 10, 5);
  const startsInFlight = 20;
  const reviewer = await startCodeReviewer();
  const push = process.env.BENCH_PARKED_PUSH === '1';
  // The first lease stands for its 5 min default: after it, an approval round parks on the shared watch.
  const firstLease = `${Number(process.env.BENCH_PARKED_FIRST_LEASE_S ?? 5)}s`;
  const deployer = await startDeployer({ pushNotifications: push });
  const planId = `parked-${Date.now()}`;
  // The wait each task parked in: its question or approval alert (any other alert is counted apart).
  const waitAlerts = () => env.bot.alerts.filter((a) => a.planId === planId && (a.kind === 'input' || a.kind === 'auth'));
  const alerted = (): number => new Set(waitAlerts().map((a) => a.workflowId)).size;
  // Nobody answers while they park. A first message whose reply was lost (a connection reset under
  // the load of parking) is resent, as its operator would; it stays on the row of other alerts.
  env.bot.onAlert = (a) => {
    if (a.planId === planId && a.kind === 'unresolved') {
      void resolveSend(env.client, a.workflowId, { action: 'resend' }).catch((e: unknown) => console.error(`bench: resend ${a.workflowId}: ${String(e)}`));
    }
  };
  const samples: MemorySample[] = [];
  let phase: MemorySample['phase'] = 'parking';
  const t0 = Date.now();
  let resumed = 0;
  const sampler = setInterval(() => {
    const sample: MemorySample = { s: (Date.now() - t0) / 1000, phase, parked: alerted(), workerMiB: rssMiB(worker.pid), serverMiB: rssMiB(env.server.pid) };
    samples.push(sample);
    // A progress line every 30 s: a 10,000-task run takes many minutes.
    if (samples.length % 30 === 0) console.error(`bench:   parked ${sample.s.toFixed(0)} s: ${phase}, ${sample.parked}/${n} alerted, ${resumed} resumed, worker ${sample.workerMiB.toFixed(0)} MiB, server ${sample.serverMiB.toFixed(0)} MiB`);
  }, 1000);
  const before = { worker: rssMiB(worker.pid), server: rssMiB(env.server.pid) };
  // What the memory figures depend on (worker/allocator.ts): 'system' is glibc's malloc, libjemalloc2 not installed.
  const allocator = runningAllocator(worker.pid);
  try {
    const handles = await pool(Array.from({ length: n }, (_, i) => i), startsInFlight, (i) => {
      const input = i % 2 === 0
        ? { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, planId }
        : { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: `Deploy build 2026.10.06-${i} to staging` }, planId, policies: { watch: { firstLease } } };
      return startDelegatedTask(env.client, input, { taskQueue, workflowId: `${planId}-${i}` });
    });
    await until(`${n} parked tasks`, () => alerted() >= n, Math.max(180_000, n * 300), 200);
    // Streaming approvals park on the shared watch when their first lease ends.
    if (!push) await until(`${n / 2} approvals parked on the shared watch`, async () => (await parkedOnHubs(env, taskQueue)) >= n / 2, Math.max(180_000, n * 100), 1000);
    const parkS = (Date.now() - t0) / 1000;
    phase = 'parked';

    // While parked: nothing happens but heartbeats and polls.
    await sleep(2000);
    const r0 = frontendRequests(await scrape(env.server.metricsUrl));
    const h0 = Date.now();
    await sleep(holdS * 1000);
    const load = diff(frontendRequests(await scrape(env.server.metricsUrl)), r0);
    const heldS = (Date.now() - h0) / 1000;
    const parkedRss = { worker: rssMiB(worker.pid), server: rssMiB(env.server.pid) };
    const settled = Math.min(parkedRss.worker, ...samples.filter((x) => x.phase === 'parked').map((x) => x.workerMiB));

    // SIGKILL the worker holding the shared watch; a new one takes every parked approval over.
    let handOverS: number | undefined;
    let handOverNote = '';
    if (!push) {
      const approvals = new Set(env.bot.alerts.filter((a) => a.planId === planId && a.kind === 'auth').map((a) => a.taskId));
      const hubs = await runningHubs(env, taskQueue);
      const killedAt = Date.now();
      worker.child.kill('SIGKILL');
      worker = await startWorker(env, taskQueue);
      const readyS = (Date.now() - killedAt) / 1000;
      const again = () => deployer.log.subscriptions.filter((x) => x.at > killedAt && x.firstFrameAt && approvals.has(x.taskId));
      await until(`${approvals.size} approvals subscribed to again`, () => new Set(again().map((x) => x.taskId)).size >= approvals.size, Math.max(120_000, n * 60), 100);
      handOverS = (Date.now() - killedAt) / 1000;
      const firstS = (Math.min(...again().map((x) => x.at)) - killedAt) / 1000;
      handOverNote = `new worker running after ${readyS.toFixed(1)} s; ${await handOverSteps(env, hubs, killedAt)}; first wait subscribed again after ${firstS.toFixed(1)} s; hold heartbeat timeout ${loadConfig(process.env).PLANNER_SHARED_WATCH_HEARTBEAT}`;
    }

    // Resume every one: answers through the client library, approvals by POST.
    phase = 'resuming';
    const taskOf = new Map(waitAlerts().map((a) => [a.workflowId, a]));
    const r1 = Date.now();
    const states = await pool(handles, startsInFlight, async (h) => {
      const a = taskOf.get(h.workflowId)!;
      if (a.kind === 'input') await answerTask(env.client, h.workflowId, { text: 'main' });
      else await deployer.approve(a.taskId);
      const { state } = await h.result();
      resumed++;
      return state;
    });
    const resumeS = (Date.now() - r1) / 1000;
    const completed = states.filter((s) => s === 'TASK_STATE_COMPLETED').length;

    const perS = (op: string): number => (load[op] ?? 0) / heldS;
    const polls = Object.entries(load).filter(([k]) => k.startsWith('Poll')).reduce((x, [, v]) => x + v, 0) / heldS;
    const kind = push ? ', approvals parked on push' : ', approvals parked on the shared watch';
    record.add({ section: '3 parked', metric: `time to park ${n} tasks (½ input, ½ auth${kind})`, unit: 's', planner: parkS, note: `${(n / parkS).toFixed(0)} tasks/s` });
    const perTaskKiB = ((parkedRss.worker - before.worker) * 1024) / n;
    record.add({ section: '3 parked', metric: `worker RSS, ${n} parked${kind}`, unit: 'MiB', planner: parkedRss.worker, note: `${before.worker.toFixed(0)} MiB before; ${perTaskKiB.toFixed(0)} KiB per task; allocator ${allocator}`, goal: n >= 10_000 ? '≤ 50 KiB per task, ≤ 500 MiB above idle, at 10,000' : undefined, met: n >= 10_000 ? perTaskKiB <= 50 && parkedRss.worker - before.worker <= 500 : undefined });
    // V8 keeps the heap it grew while parking and gives it back over the quiet minute after (its
    // memory reducer): the lowest sample of the hold is what the parked waits themselves keep.
    record.add({ section: '3 parked', metric: `worker RSS, ${n} parked, settled (lowest sample of the ${heldS.toFixed(0)} s hold)`, unit: 'MiB', planner: settled, note: `${(((settled - before.worker) * 1024) / n).toFixed(0)} KiB per task above the ${before.worker.toFixed(0)} MiB before` });
    record.add({ section: '3 parked', metric: `server RSS, ${n} parked`, unit: 'MiB', planner: parkedRss.server, note: `${before.server.toFixed(0)} MiB before` });
    record.add({ section: '3 parked', metric: 'heartbeats while parked', unit: 'req/s', planner: perS('RecordActivityTaskHeartbeat'), note: `${((perS('RecordActivityTaskHeartbeat') / (n / 2)) * 60).toFixed(1)} per approval wait per min` });
    record.add({ section: '3 parked', metric: 'polls completed while parked (an idle long poll lasts about a minute)', unit: 'req/s', planner: polls });
    record.add({ section: '3 parked', metric: `all server requests while parked${kind}`, unit: 'req/s', planner: sum(load) / heldS, goal: n >= 10_000 ? '≤ 1 req/s at 10,000 parked' : undefined, met: n >= 10_000 ? sum(load) / heldS <= 1 : undefined, note: n >= 10_000 ? undefined : 'judged at 10,000 (BENCH_PARKED=10000): the shared watch heartbeats once per worker, not per wait, so the rate does not scale with the count' });
    if (handOverS !== undefined) record.add({ section: '3 parked', metric: `worker SIGKILLed while ${n / 2} approvals were parked on its shared watch: until every one is subscribed to again (new worker's start included)`, unit: 's', planner: handOverS, goal: '≤ 10 s', met: handOverS <= 10, note: handOverNote });
    record.add({ section: '3 parked', metric: `time to resume all ${n}`, unit: 's', planner: resumeS, note: `${completed}/${n} completed` });
    // Nothing but the questions and approvals themselves should have reached the operator.
    const others = env.bot.alerts.filter((a) => a.planId === planId && a.kind !== 'input' && a.kind !== 'auth');
    const kinds = [...new Set(others.map((a) => a.kind))].map((k) => `${others.filter((a) => a.kind === k).length} ${k}`).join(', ');
    record.add({ section: '3 parked', metric: 'alerts other than the questions and approvals', unit: 'alerts', planner: others.length, goal: '0', met: others.length === 0, note: kinds || undefined });
    record.data.parked = { n, parkS, holdS: heldS, load, before, parkedRss, handOverS, resumeS, completed, samples };
    if (completed !== n) throw new Error(`parked: only ${completed} of ${n} completed`);
    return worker;
  } catch (err) {
    // The worker started after the kill is the caller's to stop only when this returns it: a run
    // that failed after the kill left it running, orphaned, after the bench had exited.
    if (worker !== first) await worker.stop();
    throw err;
  } finally {
    clearInterval(sampler);
    await Promise.all([reviewer.close(), deployer.close()]);
  }
}
