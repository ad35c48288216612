// Fault d: the agents' process (demo/agents/serve.ts) SIGKILLed and started again on the same
// ports, its in-memory tasks gone, while one plan waits on an operator (the deploy's approval,
// watched) and one on a human (the review's question, answered after the restart). Each step must
// end in a typed failure naming the agent and the task, within a bound, never a spin.
import { join } from 'node:path';
import { answerTask } from '../client/delegated-task';
import { freePort } from '../deploy/dev/dev-server';
import { spawnReady } from '../worker/child-process';
import { until, within, type ChaosEnv } from './env';
import type { Figures } from './figures';
import { wireBot } from './seed-runs';
import { whereTheyWait } from './where-it-waits';
import type { AgentHandle } from '../demo/agents';

interface AgentsProcess {
  kill(): Promise<void>;
}

async function startAgentsProcess(reviewerPort: number, deployerPort: number): Promise<AgentsProcess> {
  const p = await spawnReady(join('demo', 'agents', 'serve.ts'), { ...process.env, REVIEWER_PORT: String(reviewerPort), DEPLOYER_PORT: String(deployerPort) }, 'deployer: http');
  p.child.stdout!.resume();
  p.child.stderr!.resume();
  return { kill: () => p.stop('SIGKILL') };
}

export async function agentRestart(env: ChaosEnv, o: { boundMs: number; perRunMs: number }): Promise<Figures> {
  const [rp, dp] = [await freePort(), await freePort()];
  const urls = { reviewer: `http://127.0.0.1:${rp}`, deployer: `http://127.0.0.1:${dp}` };
  let agents = await startAgentsProcess(rp, dp);
  const t0 = Date.now();
  const stamp = Date.now().toString(36);
  const atOperator = `chaos-lost-operator-${stamp}`;
  const atHuman = `chaos-lost-human-${stamp}`;
  // The operator plan's question is answered at once; both plans' other waits are held.
  const noDeployer = (): AgentHandle => {
    throw new Error('no approvals in this fault');
  };
  const { held } = wireBot(env, noDeployer, (wf) => wf !== `${atOperator}.review`);
  const problems: string[] = [];
  let recoveryMs = 0;
  let ended = 0;
  const outcomes: string[] = [];
  try {
    await env.startSeedPlan(atOperator, urls);
    await env.startSeedPlan(atHuman, urls);
    await until('the approval page and the question page', () => held.length >= 2, 120_000).catch(async (err: unknown) => {
      throw new Error(`${String(err)}; the plans wait: ${await whereTheyWait(env.client, [atOperator, atHuman])}`);
    });
    await agents.kill();
    agents = await startAgentsProcess(rp, dp);
    const restartedAt = Date.now();
    env.log('chaos: agents killed and restarted on the same ports, their tasks gone; answering the question');
    const answered = within(answerTask(env.client, `${atHuman}.review`, { text: 'main' }), o.boundMs, 'the answer').then(
      () => 'accepted',
      (e: unknown) => String(e),
    );
    for (const [planId, step, agent] of [[atOperator, 'deploy', 'deployer'], [atHuman, 'review', 'code-reviewer']] as const) {
      const plan = await env.planOutcome(planId, o.boundMs + 30_000);
      const took = Date.now() - restartedAt;
      // The plan fails with PlanFailed; the step's own workflow carries the typed cause.
      const out = plan.ok ? plan : await env.planOutcome(`${planId}.${step}`, 10_000);
      recoveryMs = Math.max(recoveryMs, took);
      const taskId = env.bot.alerts.find((a) => a.workflowId === `${planId}.${step}`)?.taskId ?? '?';
      outcomes.push(`${step}: ${out.ok ? 'completed' : out.type} after ${(took / 1000).toFixed(1)} s`);
      if (!out.ok && out.type === 'RemoteTaskLost') ended++;
      if (out.ok) problems.push(`plan ${planId} completed although its agent lost task ${taskId}`);
      else {
        if (out.type !== 'RemoteTaskLost') problems.push(`${planId}: failure type ${out.type}, expected RemoteTaskLost (${out.message})`);
        if (!out.message.includes(agent) || !out.message.includes(taskId)) problems.push(`${planId}: the failure does not name agent ${agent} and task ${taskId}: ${out.message}`);
      }
      if (took > o.boundMs) problems.push(`${planId}: ended ${took} ms after the restart, bound ${o.boundMs} ms`);
    }
    outcomes.push(`answer: ${(await answered).slice(0, 120)}`);
  } finally {
    await agents.kill();
  }
  return {
    fault: 'd. agent restarted, tasks lost',
    runs: 2,
    // Here a run "completes" when its step ends as it must: RemoteTaskLost, within the bound.
    completed: ended,
    messages: 0,
    expectedMessages: 0,
    duplicates: 0,
    alerts: held.length,
    expectedAlerts: 2,
    missingAlerts: Math.max(0, 2 - held.length),
    redeliveries: 0,
    recoveryMs,
    seconds: (Date.now() - t0) / 1000,
    note: `steps ended: ${outcomes.join('; ')}`,
    problems,
  };
}
