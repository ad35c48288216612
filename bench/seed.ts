// 1. Seed scenario latency, planner against the plain @a2a-js/sdk client, interleaved (A B A B),
// with the floor beside them: the same scenario in the least Temporal code of its shape (bench/floor/);
// 6. where the planner's time goes, per step, from the histories' event times.
// The seed: review (the agent asks "Which base branch…", a bot answers "main") then deploy (the
// agent waits in AUTH_REQUIRED, the bot approves with POST /approve/<taskId>), each step of the
// agents doing `workMs` of simulated work.
import { join } from 'node:path';
import { startDelegatedTask } from '../client/delegated-task';
import { checkPlanSource, startPlan } from '../client/plan';
import { startCodeReviewer, startDeployer, type AgentHandle } from '../demo/agents';
import { connect, deploy, review, DEPLOY, DIFF } from './lib/baseline';
import { apiPost, diff, scrape, serverLatency, type BenchEnv } from './lib/env';
import { spansOf, sweep, type Span } from './lib/history';
import { runIdOf } from './lib/env';
import { dist, interleaveMany, pct, ROOT, size, type Record } from './lib/runner';
import type { Floor } from './floor/run';
import { MERGED, PHASES, phasesOf, type Phases } from './lib/phases';

export interface SeedSample {
  workMs: number;
  side: 'planner' | 'baseline' | 'plan';
  ms: number;
  i: number;
}

/**
 * The bot's wiring: answers questions through the planner's HTTP API (POST /v1/tasks/<id>/answer,
 * as a person's tool would), approves at the agent's own approval URL (the out-of-band step of
 * AUTH_REQUIRED: not the planner's to take), and remembers when it acted.
 */
export function wireBot(env: BenchEnv, approvers: Map<string, AgentHandle>, acted: Map<string, number>, floor?: Floor): void {
  env.bot.onAlert = (a) => {
    if (floor?.onAlert(a)) return;
    if (a.kind === 'input') {
      acted.set(a.workflowId, Date.now());
      void apiPost(env, `/v1/tasks/${encodeURIComponent(a.workflowId)}/answer`, { text: 'main' }).catch((e: unknown) => console.error(`bot answer ${a.workflowId}: ${String(e)}`));
    } else if (a.kind === 'auth') {
      const agent = approvers.get(a.workflowId);
      if (!agent) return;
      acted.set(a.workflowId, Date.now());
      void agent.approve(a.taskId).catch((e: unknown) => console.error(`bot approve ${a.taskId}: ${String(e)}`));
    }
  };
}

export async function runSeed(env: BenchEnv, record: Record, taskQueue: string, floor: Floor): Promise<void> {
  const runs = size('BENCH_SEED_RUNS', 30, 3);
  const works = (process.env.BENCH_SEED_WORK_MS ?? '200,0').split(',').map(Number);
  const samples: SeedSample[] = [];
  const breakdowns: { workMs: number; parts: { [k: string]: number } }[] = [];
  const approvers = new Map<string, AgentHandle>();
  const acted = new Map<string, number>();
  wireBot(env, approvers, acted, floor);
  for (const workMs of works) {
    const reviewer = await startCodeReviewer({ workMs });
    const deployer = await startDeployer({ workMs });
    const [rc, dc] = await Promise.all([connect(reviewer.baseUrl), connect(deployer.baseUrl)]);
    const runsOf: { i: number; t0: number; t1: number; ids: [string, string]; runIds: [string, string] }[] = [];
    const planChecks: number[] = [];
    try {
      // Each side's runs as windows, for the phases that only the agents' and the bot's logs show (bench/lib/phases.ts).
      type Window = { t0: number; t1: number; ids: [string, string] };
      const windows = { baseline: [] as { t0: number; t1: number }[], floor: [] as Window[], plan: [] as Window[], floorPlan: [] as Window[], floorShownPlan: [] as Window[], floorPromisedPlan: [] as Window[], floorPromised: [] as Window[] };
      const planner = async (i: number): Promise<number> => {
        const t0 = Date.now();
        const r = await startDelegatedTask(env.client, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, planId: `seed-${workMs}-${i}` }, { taskQueue });
        const rr = await r.result();
        if (rr.state !== 'TASK_STATE_COMPLETED') throw new Error(`review ended ${rr.state}`);
        const d = await startDelegatedTask(env.client, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, planId: `seed-${workMs}-${i}` }, { taskQueue, workflowId: `seed-deploy-${workMs}-${i}-${t0}` });
        approvers.set(d.workflowId, deployer);
        const dr = await d.result();
        if (dr.state !== 'TASK_STATE_COMPLETED') throw new Error(`deploy ended ${dr.state}`);
        const t1 = Date.now();
        runsOf.push({ i, t0, t1, ids: [r.workflowId, d.workflowId], runIds: [runIdOf(r), runIdOf(d)] });
        return t1 - t0;
      };
      // The seed plan itself (demo/plans/release.yaml): PlanWorkflow runs both steps as children.
      // In every other round only (half the runs): it is not one of the two sides, and a
      // plan run at 200 ms of work costs 1.3 s of the run's 5 minutes. Its file is read and checked
      // before its window opens (a row of its own): the floor's plan and the plain client get their
      // steps as values, so the plan's row compares PlanWorkflow with them, not a YAML read.
      const plan = async (i: number): Promise<number | undefined> => {
        if (i % 2 === 1) return undefined;
        const tc = performance.now();
        const checked = checkPlanSource({ planFile: join(ROOT, 'demo', 'plans', 'release.yaml') }, { agentUrls: { 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl } });
        planChecks.push(performance.now() - tc);
        const t0 = Date.now();
        const planId = `seedplan-${workMs}-${i}-${t0}`;
        const ids: [string, string] = [`${planId}.review`, `${planId}.deploy`]; // its steps' tasks (workflows/plan/state.ts)
        approvers.set(ids[1], deployer);
        const { handle } = await startPlan(env.client, checked, { planId }, { taskQueue });
        await handle.result();
        const t1 = Date.now();
        windows.plan.push({ t0, t1, ids });
        return t1 - t0;
      };
      // The floor (bench/floor/): its scenario in the rounds without the seed plan, its plan in the
      // others. Its server calls are in its own namespace, out of §6's server times.
      const floorSide = async (i: number): Promise<number | undefined> => {
        if (i % 2 === 0) {
          windows.floorPlan.push(await floor.runPlan(i, reviewer, deployer, String(workMs)));
          return undefined;
        }
        const run = await floor.run(i, reviewer, deployer, String(workMs));
        windows.floor.push(run);
        return run.t1 - run.t0;
      };
      // The floor's plan that shows what waits on whom (bench/floor/workflow.ts), in the plan's rounds:
      // what a plan that shows its steps' waits, as the planner's must, costs on this machine.
      const floorShownPlan = async (i: number): Promise<undefined> => {
        if (i % 2 === 0) windows.floorShownPlan.push(await floor.runPlan(i, reviewer, deployer, String(workMs), { showWaits: true }));
        return undefined;
      };
      // And that plan with the events of the planner's other promises (a patch in each step, a
      // timer on each wait the planner times, each step's end recorded): what those events cost
      // apart from the planner's code. In the other rounds, the floor's scenario with them (each
      // task showing its own wait; the approval untimed, as a task started alone), beside the
      // planner's scenario.
      const floorPromised = async (i: number): Promise<number | undefined> => {
        if (i % 2 === 0) {
          windows.floorPromisedPlan.push(await floor.runPlan(i, reviewer, deployer, String(workMs), { promises: true }));
          return undefined;
        }
        const run = await floor.run(i, reviewer, deployer, String(workMs), { promises: true });
        windows.floorPromised.push(run);
        return run.t1 - run.t0;
      };
      const baseline = async (): Promise<number> => {
        const t0 = Date.now();
        await review(rc);
        await deploy(dc, (taskId) => deployer.approve(taskId));
        const t1 = Date.now();
        windows.baseline.push({ t0, t1 });
        return t1 - t0;
      };
      // Warm-up: connections, caches, the worker's first workflow tasks; not recorded.
      await interleaveMany(2, [planner, baseline, plan, floorSide, floorShownPlan, floorPromised]);
      runsOf.length = 0;
      planChecks.length = 0;
      for (const w of Object.values(windows)) w.length = 0;
      // A2A requests the agents see per run, by method, on each side.
      const requests = { planner: {} as { [m: string]: number }, baseline: {} as { [m: string]: number } };
      const counted = <T>(side: 'planner' | 'baseline', fn: (i: number) => Promise<T>) => async (i: number): Promise<T> => {
        const [r0, d0] = [reviewer.log.requests.length, deployer.log.requests.length];
        const out = await fn(i);
        for (const q of [...reviewer.log.requests.slice(r0), ...deployer.log.requests.slice(d0)]) requests[side][q.method] = (requests[side][q.method] ?? 0) + 1 / runs;
        return out;
      };
      const lat0 = serverLatency(await scrape(env.server.metricsUrl));
      const [as = [], bs = [], cs = [], fs = [], , qs = []] = await interleaveMany<number | undefined>(runs, [counted('planner', planner), counted('baseline', baseline), plan, floorSide, floorShownPlan, floorPromised]);
      const [a, b, c, f] = [as, bs, cs, fs].map((xs) => xs.filter((x): x is number => x !== undefined)) as [number[], number[], number[], number[]];
      const describe = (r: { [m: string]: number }): string => Object.entries(r).map(([m, c]) => `${m} ${c.toFixed(1)}`).join(', ');
      record.add({ section: '1 seed', metric: `A2A requests per seed run, ${workMs} ms work`, unit: '', planner: describe(requests.planner), baseline: describe(requests.baseline) });
      a.forEach((ms, i) => samples.push({ workMs, side: 'planner', ms, i }));
      b.forEach((ms, i) => samples.push({ workMs, side: 'baseline', ms, i }));
      c.forEach((ms, i) => samples.push({ workMs, side: 'plan', ms, i: 2 * i }));
      const pa = dist(a);
      const pb = dist(b);
      // Issue 21's goals, at 200 ms of work: the scenario ≤ 1.10× the plain client, the plan ≤ 1.15×.
      const goal = workMs === 200 ? { goal: '≤ 1.10× at p50', met: pa.p50 / pb.p50 <= 1.1 } : {};
      record.add({ section: '1 seed', metric: `seed scenario p50, ${workMs} ms agent work/step`, unit: 'ms', planner: pa.p50, baseline: pb.p50, ...goal });
      record.add({ section: '1 seed', metric: `seed scenario p95, ${workMs} ms agent work/step`, unit: 'ms', planner: pa.p95, baseline: pb.p95 });
      const pc = dist(c);
      const planGoal = workMs === 200 ? { goal: '≤ 1.15× at p50', met: pc.p50 / pb.p50 <= 1.15 } : {};
      record.add({ section: '1 seed', metric: `seed plan (PlanWorkflow, demo/plans/release.yaml) p50 / p95 (${c.length} runs), ${workMs} ms work`, unit: 'ms', planner: `${pc.p50} / ${pc.p95} ms`, baseline: `${pb.p50} / ${pb.p95} ms`, ratio: pc.p50 / pb.p50, ...planGoal });
      record.add({ section: '1 seed', metric: `checking the seed plan's file (read, YAML, schema, checks) before each seed plan's window opens, ${workMs} ms work`, unit: 'ms', planner: dist(planChecks).p50, note: `p50 of ${planChecks.length}` });
      const pf = dist(f);
      record.add({ section: '1 seed', metric: `the floor: the scenario in the least Temporal code of its shape (bench/floor/) p50 / p95 (${f.length} runs), ${workMs} ms work`, unit: 'ms', planner: `${pf.p50} / ${pf.p95} ms`, baseline: `${pb.p50} / ${pb.p95} ms`, ratio: pf.p50 / pb.p50 });
      const floorPlans = windows.floorPlan.map((w) => w.t1 - w.t0);
      const pfp = dist(floorPlans);
      record.add({ section: '1 seed', metric: `the floor's plan: its two tasks as children of one workflow p50 / p95 (${floorPlans.length} runs), ${workMs} ms work`, unit: 'ms', planner: `${pfp.p50} / ${pfp.p95} ms`, baseline: `${pb.p50} / ${pb.p95} ms`, ratio: pfp.p50 / pb.p50 });
      const shownPlans = windows.floorShownPlan.map((w) => w.t1 - w.t0);
      const pfs = dist(shownPlans);
      record.add({ section: '1 seed', metric: `the floor's plan showing what waits on whom (each step's wait in its search attribute and reported to the plan, which keeps it in its own) p50 / p95 (${shownPlans.length} runs), ${workMs} ms work`, unit: 'ms', planner: `${pfs.p50} / ${pfs.p95} ms`, baseline: `${pb.p50} / ${pb.p95} ms`, ratio: pfs.p50 / pb.p50 });
      const promisedPlans = windows.floorPromisedPlan.map((w) => w.t1 - w.t0);
      const pfq = dist(promisedPlans);
      record.add({ section: '1 seed', metric: `the floor's plan showing what waits on whom, with the events of the planner's other promises (a patch in each step, a timer on each wait, each step's end in its search attributes) p50 / p95 (${promisedPlans.length} runs), ${workMs} ms work`, unit: 'ms', planner: `${pfq.p50} / ${pfq.p95} ms`, baseline: `${pb.p50} / ${pb.p95} ms`, ratio: pfq.p50 / pb.p50 });
      const promised = qs.filter((x): x is number => x !== undefined);
      const pq = dist(promised);
      record.add({ section: '1 seed', metric: `the floor's scenario with the events of the planner's other promises (each task's wait in its search attributes, a patch, a timer on the question, its end in its search attributes) p50 / p95 (${promised.length} runs), ${workMs} ms work`, unit: 'ms', planner: `${pq.p50} / ${pq.p95} ms`, baseline: `${pb.p50} / ${pb.p95} ms`, ratio: pq.p50 / pb.p50 });
      record.data[`floor${workMs}`] = { scenario: f, plan: floorPlans, shownPlan: shownPlans, promisedPlan: promisedPlans, promisedScenario: promised };
      // The planner's own distance from the floor, each run against the floor's run of the same
      // round (seconds apart): the machine's speed, which moves every side's p50 from one run of
      // the bench to the next (bench/lib/machine-speed.ts), falls on both runs of a pair.
      const scenarioAgainst = (floorRuns: (number | undefined)[]): number[] => as.flatMap((ms, i) => (ms !== undefined && floorRuns[i] !== undefined ? [ms - floorRuns[i]] : []));
      const planAgainst = (floorPlan: number[]): number[] => c.flatMap((ms, k) => (floorPlan[k] !== undefined ? [ms - floorPlan[k]] : []));
      const paired = (xs: number[]): string => `${dist(xs).p50} ms (${xs.length} pairs; p25 / p75 ${pct(xs, 25)} / ${pct(xs, 75)} ms)`;
      record.add({ section: '1 seed', metric: `seed scenario − the floor, each run against the floor's run of its round, p50 of the differences, ${workMs} ms work`, unit: 'ms', planner: paired(scenarioAgainst(fs)) });
      record.add({ section: '1 seed', metric: `seed scenario − the floor's scenario with the events of the planner's other promises, each run against that of its round, p50 of the differences, ${workMs} ms work`, unit: 'ms', planner: paired(scenarioAgainst(qs)) });
      record.add({ section: '1 seed', metric: `seed plan − the floor's plan, each against the floor's plan of its round, p50 of the differences, ${workMs} ms work`, unit: 'ms', planner: paired(planAgainst(floorPlans)) });
      record.add({ section: '1 seed', metric: `seed plan − the floor's plan showing what waits on whom, each against that of its round, p50 of the differences, ${workMs} ms work`, unit: 'ms', planner: paired(planAgainst(shownPlans)) });
      record.add({ section: '1 seed', metric: `seed plan − the floor's plan showing what waits on whom with the events of the planner's other promises, each against that of its round, p50 of the differences, ${workMs} ms work`, unit: 'ms', planner: paired(planAgainst(promisedPlans)) });
      // The server's own time per call (its service_latency histogram): the baseline calls no Temporal.
      const lat = diff(serverLatency(await scrape(env.server.metricsUrl)), lat0);
      for (const op of ['StartWorkflowExecution', 'RespondWorkflowTaskCompleted', 'RespondActivityTaskCompleted', 'UpdateWorkflowExecution']) {
        const [ms, n] = [lat[`${op} ms`] ?? 0, lat[`${op} n`] ?? 0];
        // An update's call lasts until its result (the answer sent, the agent's reply): not server work.
        const what = op === 'UpdateWorkflowExecution' ? `${op} (lasts until the answer is sent)` : op;
        if (n) record.add({ section: '6 where the time goes', metric: `server time per ${what}, ${workMs} ms work`, unit: 'ms', planner: ms / n, note: `mean of ${n}; ${(ms / runs).toFixed(0)} ms per seed run` });
      }

      // 6. The same phases on every side, from the agents' and the bot's logs: the planner's time
      // over the floor, phase by phase (p50 of each side's runs).
      const phaseRows = (runs: Phases[]): { [k: string]: number } => Object.fromEntries([...PHASES, ...Object.keys(MERGED)].flatMap((k) => {
        const xs = runs.map((r) => r[k]).filter((x): x is number => x !== undefined);
        return xs.length ? [[k, dist(xs).p50]] : [];
      }));
      const cut = (r: { t0: number; t1: number; ids?: [string, string] }): Phases => phasesOf(r, reviewer, deployer, env.bot.alerts);
      const perRun = { planner: runsOf.map(cut), floor: windows.floor.map(cut), baseline: windows.baseline.map(cut) };
      const bp = phaseRows(perRun.baseline);
      // One row per phase: the planner's p50 beside the plain client's, the floor's in the note.
      const addPhaseRows = (label: string, per: string, keys: readonly string[], mine: Phases[], floors: Phases[], floorName: string): void => {
        const [pp, fp] = [phaseRows(mine), phaseRows(floors)];
        for (const k of keys) {
          const note = `p50 per ${per}; ${floorName} ${fp[k]?.toFixed(0) ?? '-'} ms, planner − floor ${pp[k] !== undefined && fp[k] !== undefined ? (pp[k] - fp[k]).toFixed(1) : '-'} ms`;
          record.add({ section: '6 where the time goes', metric: `${label}: ${k}, ${workMs} ms work`, unit: 'ms', planner: pp[k] ?? '-', baseline: bp[k] ?? '-', note });
        }
      };
      addPhaseRows('phase', 'seed run', [...PHASES, ...Object.keys(MERGED)], perRun.planner, perRun.floor, 'the floor');
      // The seed plan's runs cut the same way (its children's alerts), beside the floor's plan.
      const perPlan = { planner: windows.plan.map(cut), floor: windows.floorPlan.map(cut) };
      addPhaseRows('plan phase', 'seed plan run', PHASES, perPlan.planner, perPlan.floor, "the floor's plan");
      record.data[`phases${workMs}`] = { ...perRun, plan: perPlan.planner, floorPlan: perPlan.floor, floorShownPlan: windows.floorShownPlan.map(cut), floorPromisedPlan: windows.floorPromisedPlan.map(cut), floorPromised: windows.floorPromised.map(cut) };

      // 6. Where the time goes: each run's two histories, swept into categories.
      for (const run of runsOf) {
        const parts: { [k: string]: number } = {};
        const add = (k: string, v: number): void => void (parts[k] = (parts[k] ?? 0) + v);
        let inWorkflows = 0;
        for (const [j, id] of run.ids.entries()) {
          const h = await env.client.workflow.getHandle(id, run.runIds[j]).fetchHistory();
          const { spans, start, end } = spansOf(h);
          inWorkflows += end - start;
          const botAt = acted.get(id);
          // The deploy's watch holds the approval wait: alert → bot's POST is the bot's, not the watch's.
          const alert = env.bot.alerts.find((x) => x.workflowId === id);
          const extra: Span[] = alert && botAt && j === 1 ? [{ category: 'bot (alert → answer / approval)', from: alert.at, to: botAt, priority: 0 }] : [];
          const swept = sweep([...spans, ...extra], start, end, 'bot (alert → answer / approval)');
          for (const [k, v] of Object.entries(swept)) add(k, v);
        }
        // The agents' simulated work sits inside the sendMessage / watch activities (a local one's
        // workflow task included).
        const agentMs = 2 * workMs + 2 * (20 + workMs);
        const inActivities = (parts['activity sendMessage'] ?? 0) + (parts['activity watchRemoteTask'] ?? 0);
        add('agent work (simulated)', Math.min(agentMs, inActivities));
        add('activity run (client calls, watch; a local one with its workflow task)', inActivities - Math.min(agentMs, inActivities));
        delete parts['activity sendMessage'];
        delete parts['activity watchRemoteTask'];
        add('client (start, result, between tasks)', run.t1 - run.t0 - inWorkflows);
        breakdowns.push({ workMs, parts });
      }
      const cats = [...new Set(breakdowns.filter((b) => b.workMs === workMs).flatMap((b) => Object.keys(b.parts)))];
      for (const c of cats) {
        const xs = breakdowns.filter((b) => b.workMs === workMs).map((b) => b.parts[c] ?? 0);
        record.add({ section: '6 where the time goes', metric: `${c}, ${workMs} ms work`, unit: 'ms', planner: dist(xs).p50, note: 'p50 per seed run' });
      }
    } finally {
      await Promise.all([reviewer.close(), deployer.close()]);
    }
  }
  record.data.seed = samples;
  record.data.breakdown = breakdowns;
}
