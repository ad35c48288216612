// Fault c: the dev server stopped and started again on its SQLite file while plans wait: one on a
// human (the review's question), one on an operator (the deploy's approval), and one just started.
// The bot holds those two pages until the server is back, then acts: every plan must complete.
import { startCodeReviewer, startDeployer } from '../demo/agents';
import { until, type ChaosEnv } from './env';
import { ALERTS_PER_RUN, countSeedRuns, MESSAGES_PER_RUN, seedProblems, type Figures } from './figures';
import { act, runSeedPlans, wireBot } from './seed-runs';
import { whereTheyWait } from './where-it-waits';

export async function serverRestart(env: ChaosEnv, o: { pairs: number; downMs: number; perRunMs: number }): Promise<Figures> {
  const reviewer = await startCodeReviewer();
  const deployer = await startDeployer();
  const urls = { reviewer: reviewer.baseUrl, deployer: deployer.baseUrl };
  const t0 = Date.now();
  const stamp = Date.now().toString(36);
  const atHuman = Array.from({ length: o.pairs }, (_, i) => `chaos-restart-human-${i}-${stamp}`);
  const atOperator = Array.from({ length: o.pairs }, (_, i) => `chaos-restart-operator-${i}-${stamp}`);
  const inFlight = Array.from({ length: o.pairs }, (_, i) => `chaos-restart-flight-${i}-${stamp}`);
  const holding = new Set([...atHuman.map((p) => `${p}.review`), ...atOperator.map((p) => `${p}.deploy`)]);
  let released = false;
  const { held } = wireBot(env, () => deployer, (wf) => !released && holding.has(wf));
  try {
    const waiting = runSeedPlans(env, urls, [...atHuman, ...atOperator], { concurrency: 2 * o.pairs, perRunMs: o.perRunMs });
    await until('a page for every held wait', () => held.length >= holding.size, 120_000).catch(async (err: unknown) => {
      throw new Error(`${String(err)}; the plans wait: ${await whereTheyWait(env.client, [...atHuman, ...atOperator])}`);
    });
    env.log(`chaos: server restart: ${atHuman.length} plan(s) wait on a human, ${atOperator.length} on an operator; stopping the dev server`);
    const flying = runSeedPlans(env, urls, inFlight, { concurrency: o.pairs, perRunMs: o.perRunMs });
    const { downMs, servingAfterMs } = await env.restartServer(o.downMs);
    const backAt = Date.now();
    env.log(`chaos: server restart: down ${downMs} ms, serving again ${servingAfterMs} ms after the stop; answering and approving`);
    released = true;
    for (const key of held) {
      const a = env.bot.alerts.find((x) => x.idempotencyKey === key)!;
      act(env, () => deployer, a.kind, a.workflowId, a.taskId);
    }
    const [w, fl] = await Promise.all([waiting, flying]);
    const planIds = [...atHuman, ...atOperator, ...inFlight];
    const f: Figures = {
      fault: 'c. dev server restart',
      runs: planIds.length,
      completed: w.completed + fl.completed,
      expectedMessages: planIds.length * MESSAGES_PER_RUN,
      expectedAlerts: planIds.length * ALERTS_PER_RUN,
      ...countSeedRuns(planIds, [reviewer, deployer], env.bot.alerts),
      recoveryMs: servingAfterMs,
      seconds: (Date.now() - t0) / 1000,
      note: `server down ${(downMs / 1000).toFixed(1)} s; waiting plans done ${((Date.now() - backAt) / 1000).toFixed(1)} s after it was back`,
      problems: [],
    };
    f.problems = [...seedProblems(f), ...w.failures.slice(0, 3), ...fl.failures.slice(0, 3)];
    return f;
  } finally {
    await reviewer.close();
    await deployer.close();
  }
}
