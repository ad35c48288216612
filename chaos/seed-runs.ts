// Runs of the seed plan with the bot as the human and the operator: it answers each question once
// and approves each deploy once (per page, whatever the redeliveries), retrying through faults.
import type { AgentHandle } from '../demo/agents';
import { sleep, type ChaosEnv } from './env';

export interface SeedTargets {
  agents: AgentHandle[];
  deployer: AgentHandle;
  urls: { reviewer: string; deployer: string };
}

/** Acts on each new page: answers questions with "main", approves deploys at the agent. */
export function wireBot(env: ChaosEnv, deployer: () => AgentHandle, hold: (workflowId: string) => boolean = () => false): { held: string[] } {
  const acted = new Set<string>();
  const held: string[] = [];
  env.bot.onAlert = (a) => {
    if (acted.has(a.idempotencyKey)) return;
    acted.add(a.idempotencyKey);
    if (hold(a.workflowId)) {
      held.push(a.idempotencyKey);
      return;
    }
    act(env, deployer, a.kind, a.workflowId, a.taskId);
  };
  return { held };
}

export function act(env: ChaosEnv, deployer: () => AgentHandle, kind: string, workflowId: string, taskId: string): void {
  if (kind === 'input') {
    void env.answer(workflowId).catch((e: unknown) => env.log(`chaos: answer to ${workflowId} failed: ${String(e)}`));
  } else if (kind === 'auth') {
    void (async () => {
      for (let i = 0; i < 10; i++) {
        try {
          return await deployer().approve(taskId);
        } catch (e) {
          if (i === 9) env.log(`chaos: approval of ${taskId} failed: ${String(e)}`);
          await sleep(500);
        }
      }
    })();
  }
}

export interface SeedRunResult {
  completed: number;
  durationsMs: number[];
  failures: string[];
}

/** Starts the plans, at most `concurrency` at a time, and waits for each (bounded by perRunMs). */
export async function runSeedPlans(env: ChaosEnv, urls: SeedTargets['urls'], planIds: string[], o: { concurrency: number; perRunMs: number; progress?: (done: number) => void }): Promise<SeedRunResult> {
  const result: SeedRunResult = { completed: 0, durationsMs: [], failures: [] };
  let next = 0;
  let done = 0;
  const lane = async (): Promise<void> => {
    while (next < planIds.length) {
      const planId = planIds[next++]!;
      const t0 = Date.now();
      try {
        await startWithRetry(env, planId, urls);
        const out = await env.planOutcome(planId, o.perRunMs);
        if (out.ok) {
          result.completed++;
          result.durationsMs.push(Date.now() - t0);
        } else {
          result.failures.push(`${planId}: ${out.type}: ${out.message}`);
        }
      } catch (err) {
        result.failures.push(`${planId}: ${String(err)}`);
      }
      o.progress?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, planIds.length) }, lane));
  return result;
}

/** A start can meet a restarting server: try again (the plan id makes a second start harmless). */
async function startWithRetry(env: ChaosEnv, planId: string, urls: SeedTargets['urls']): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await env.startSeedPlan(planId, urls);
    } catch (err) {
      if (/already started|AlreadyStarted/i.test(String(err))) return;
      if (i >= 20) throw err;
      await sleep(1000);
    }
  }
}
