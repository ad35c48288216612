// Fault b: SIGKILL of the planner's worker process at random points while seed plans run, a
// replacement started each time. Recovery: from a kill to the next sign of progress (a message
// reaching an agent, a page, or a run completing) once the replacement runs.
import { startCodeReviewer, startDeployer } from '../demo/agents';
import { sleep, until, type ChaosEnv, type WorkerProcess } from './env';
import { ALERTS_PER_RUN, countSeedRuns, MESSAGES_PER_RUN, rng, seedProblems, type Figures } from './figures';
import { runSeedPlans, wireBot } from './seed-runs';

export async function workerKills(
  env: ChaosEnv,
  worker: { current: WorkerProcess },
  o: { runs: number; concurrency: number; maxKills: number; jitterMs: number; seed: number; perRunMs: number },
): Promise<Figures> {
  const random = rng(o.seed + 1);
  const reviewer = await startCodeReviewer();
  const deployer = await startDeployer();
  const urls = { reviewer: reviewer.baseUrl, deployer: deployer.baseUrl };
  wireBot(env, () => deployer);
  const t0 = Date.now();
  const stamp = Date.now().toString(36);
  const planIds = Array.from({ length: o.runs }, (_, i) => `chaos-kill-${i}-${stamp}`);
  let done = 0;
  const progress = (): number => reviewer.log.userMessages.length + deployer.log.userMessages.length + env.bot.alerts.length + done;
  const recoveries: number[] = [];
  try {
    const running = runSeedPlans(env, urls, planIds, { concurrency: o.concurrency, perRunMs: o.perRunMs, progress: (n) => void (done = n) });
    let finished = false;
    void running.finally(() => void (finished = true));
    // Kill points drawn across the runs' progress (6 signs per run: 3 messages, 2 pages, its end),
    // so every kill lands while runs are under way, at whatever step they are.
    const total = MESSAGES_PER_RUN + ALERTS_PER_RUN + 1;
    const points = Array.from({ length: o.maxKills }, () => Math.floor(random() * (planIds.length * total - 2)) + 1).sort((a, b) => a - b);
    for (const point of points) {
      await until(`progress point ${point}`, () => progress() >= point || finished, o.perRunMs, 20);
      if (finished) break;
      // A little further, at a random moment: between two steps or inside one.
      await sleep(random() * o.jitterMs);
      const killedAt = Date.now();
      await worker.current.kill('SIGKILL');
      const mark = progress();
      worker.current = await env.startWorker();
      // Nothing may be left to do (every run done or waiting): then recovery is the restart itself.
      await until('progress after a kill', () => progress() > mark || finished || done === planIds.length, 180_000, 50);
      recoveries.push(Date.now() - killedAt);
      env.log(`chaos: kill ${recoveries.length}: worker replaced, progress again after ${recoveries.at(-1)} ms (${done}/${planIds.length} runs done)`);
    }
    const r = await running;
    const f: Figures = {
      fault: 'b. worker SIGKILL',
      runs: planIds.length,
      completed: r.completed,
      expectedMessages: planIds.length * MESSAGES_PER_RUN,
      expectedAlerts: planIds.length * ALERTS_PER_RUN,
      ...countSeedRuns(planIds, [reviewer, deployer], env.bot.alerts),
      recoveryMs: Math.max(0, ...recoveries),
      seconds: (Date.now() - t0) / 1000,
      note: `${recoveries.length} kills (p50 recovery ${(median(recoveries) / 1000).toFixed(1)} s)`,
      problems: [],
    };
    f.problems = [...seedProblems(f), ...r.failures.slice(0, 3)];
    if (recoveries.length === 0) f.problems.push('no kill happened: the runs ended before the first one');
    return f;
  } finally {
    await reviewer.close();
    await deployer.close();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : 0;
}
