// Fault a: a proxy between the planner and both agents that drops connections after forwarding,
// cuts streams a few hundred milliseconds in, answers bursts of 503 and resets connections; one
// phase per mode, then all mixed. Recovery: the slowest run's time beyond a clean run's.
import { startCodeReviewer, startDeployer } from '../demo/agents';
import type { ChaosEnv } from './env';
import { ALERTS_PER_RUN, countSeedRuns, MESSAGES_PER_RUN, rng, seedProblems, type Figures } from './figures';
import { startFaultyProxy, type FaultCounts, type ProxyMode } from './proxy';
import { runSeedPlans, wireBot } from './seed-runs';

/** Drops and resets at most, per run of a phase, at each agent's proxy. */
const FAULTS_PER_RUN = 3;

export async function proxyFaults(env: ChaosEnv, o: { runsPerMode: number; modes: readonly ProxyMode[]; seed: number; perRunMs: number }): Promise<Figures[]> {
  const random = rng(o.seed);
  // Some work per step keeps streams open long enough for the proxy to cut them.
  const reviewer = await startCodeReviewer({ workMs: 300 });
  const deployer = await startDeployer({ workMs: 300 });
  const proxies = [await startFaultyProxy(reviewer.baseUrl, random), await startFaultyProxy(deployer.baseUrl, random)];
  const urls = { reviewer: proxies[0]!.baseUrl, deployer: proxies[1]!.baseUrl };
  wireBot(env, () => deployer);
  const out: Figures[] = [];
  try {
    const stamp = Date.now().toString(36);
    // A clean run first: the yardstick for recovery.
    const clean = await runSeedPlans(env, urls, [`chaos-proxy-clean-${stamp}`], { concurrency: 1, perRunMs: o.perRunMs });
    const baseMs = clean.durationsMs[0] ?? 0;
    env.log(`chaos: proxy: a clean seed run takes ${baseMs} ms`);
    for (const mode of o.modes) {
      const t0 = Date.now();
      // A bounded number of faults per phase: at random, a seed could refuse one send's every retry
      // for the run's whole time (seed 884307540 reset an answer's nine attempts in 120 s).
      for (const p of proxies) p.setMode(mode, FAULTS_PER_RUN * o.runsPerMode);
      const before = proxies.map((p) => ({ ...p.counts }));
      const planIds = Array.from({ length: o.runsPerMode }, (_, i) => `chaos-proxy-${mode}-${i}-${stamp}`);
      const r = await runSeedPlans(env, urls, planIds, { concurrency: o.runsPerMode, perRunMs: o.perRunMs });
      for (const p of proxies) p.setMode('pass');
      const did = sumCounts(proxies.map((p, i) => delta(p.counts, before[i]!)));
      const f: Figures = {
        fault: `a. proxy ${mode}`,
        runs: planIds.length,
        completed: r.completed,
        expectedMessages: planIds.length * MESSAGES_PER_RUN,
        expectedAlerts: planIds.length * ALERTS_PER_RUN,
        ...countSeedRuns(planIds, [reviewer, deployer], env.bot.alerts),
        recoveryMs: Math.max(0, Math.max(0, ...r.durationsMs) - baseMs),
        seconds: (Date.now() - t0) / 1000,
        note: `${did.forwarded} forwarded, ${did.dropped} dropped after forwarding, ${did.cut} streams cut, ${did.unavailable} × 503, ${did.reset} resets`,
        problems: [],
      };
      f.problems = [...seedProblems(f), ...r.failures.slice(0, 3)];
      if (did.dropped + did.cut + did.unavailable + did.reset === 0) f.problems.push('the proxy injected no fault');
      out.push(f);
      env.log(`chaos: proxy ${mode}: ${f.completed}/${f.runs} runs in ${f.seconds.toFixed(0)} s; ${f.note}`);
    }
  } finally {
    for (const p of proxies) await p.close();
    await reviewer.close();
    await deployer.close();
  }
  return out;
}

function delta(a: FaultCounts, b: FaultCounts): FaultCounts {
  return { forwarded: a.forwarded - b.forwarded, dropped: a.dropped - b.dropped, cut: a.cut - b.cut, unavailable: a.unavailable - b.unavailable, reset: a.reset - b.reset };
}

function sumCounts(xs: FaultCounts[]): FaultCounts {
  return xs.reduce((s, x) => ({ forwarded: s.forwarded + x.forwarded, dropped: s.dropped + x.dropped, cut: s.cut + x.cut, unavailable: s.unavailable + x.unavailable, reset: s.reset + x.reset }));
}
