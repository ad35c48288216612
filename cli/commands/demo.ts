// planner demo (also `npm run demo`): the seed's plan end to end. It uses a running `planner dev`
// when there is one and starts what is missing otherwise; then it runs demo/plans/release.yaml,
// answers the reviewer's question and approves the deploy as a simulated operator (or lets the
// person at the keyboard do both, with --interactive), and prints the artifacts and the UI link.
import { createInterface } from 'node:readline/promises';
import { Command } from '@commander-js/extra-typings';
import { Client } from '@temporalio/client';
import { connectClient, temporalTarget } from '../../runtime/temporal-connection';
import { driveDemo } from '../../demo/drive';
import { payloadSettings, plannerDataConverter } from '../../payloads/data-converter';
import { isServing } from '../../deploy/dev/dev-server';
import type { PlannerConfig } from '../../runtime/config';
import { CliFailure } from '../errors';
import { examples } from '../help';
import { out } from '../output';
import { configOrUsage } from '../temporal';

export function demoCommand() {
  return new Command('demo')
    .description("run the seed's plan: review a diff (answer its question), then deploy a build (approve it)")
    .option('--interactive', 'you answer the question and open the approval URL yourself')
    .addHelpText(
      'after',
      `
Uses the Temporal server at TEMPORAL_ADDRESS, a worker on PLANNER_TASK_QUEUE and the demo agents
(PLANNER_DEMO_REVIEWER_PORT, PLANNER_DEMO_DEPLOYER_PORT) when \`planner dev\` runs them; starts
whatever is missing in this process otherwise, and stops it at the end. Non-interactive, a
simulated operator answers "main" and approves the deploy; it runs to the end in seconds.`,
    )
    .addHelpText('after', examples('planner demo', 'npm run demo', 'planner demo --interactive'))
    .action(async ({ interactive }) => {
      process.env.PLANNER_LOG_LEVEL ??= 'error'; // the demo's own lines tell the story (alerts included)
      const config = configOrUsage();
      const demoAgents = {
        'code-reviewer': `http://127.0.0.1:${config.PLANNER_DEMO_REVIEWER_PORT}`,
        deployer: `http://127.0.0.1:${config.PLANNER_DEMO_DEPLOYER_PORT}`,
      };
      const temporalUp = await isServing(config.TEMPORAL_ADDRESS);
      const agentsUp = (await Promise.all(Object.values(demoAgents).map(answersCard))).every(Boolean);
      const workerUp = temporalUp && (await workerPolls(config));
      const drive = async (temporal: Client, agentUrls: Record<string, string>, uiUrl: string): Promise<void> => {
        const rl = interactive ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
        try {
          const s = await driveDemo({
            client: temporal,
            taskQueue: config.PLANNER_TASK_QUEUE,
            agentUrls,
            interactive,
            ...(rl ? { ask: (q: string) => rl.question(q) } : {}),
            out,
            uiUrl,
            namespace: config.TEMPORAL_NAMESPACE,
          });
          if (s.workflowStatus !== 'COMPLETED') throw new CliFailure(`the demo's plan ${s.planId} did not complete (${s.workflowStatus.toLowerCase()})`);
        } finally {
          rl?.close();
        }
      };
      if (temporalUp && agentsUp && workerUp) {
        out(`using the running planner at ${config.TEMPORAL_ADDRESS} and the demo agents at ${Object.values(demoAgents).join(', ')}`);
        const target = temporalTarget(config);
        const connection = await connectClient(target);
        try {
          await drive(new Client({ connection, namespace: target.namespace, dataConverter: plannerDataConverter(payloadSettings(config)) }), demoAgents, config.PLANNER_UI_URL);
        } finally {
          await connection.close();
        }
        return;
      }
      const missing = [!temporalUp && 'a Temporal dev server', !workerUp && 'the workers', !agentsUp && 'the demo agents'].filter(Boolean).join(', ');
      out(`no running planner dev found; starting ${missing} here (stopped at the end)`);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, as planner dev does
      const { runEmbeddedPlanner } = require('../embedded-planner') as typeof import('../embedded-planner');
      await runEmbeddedPlanner({
        agents: !agentsUp,
        workers: !workerUp,
        api: false,
        banner: false,
        then: ({ temporal, config: running, endpoints }) => {
          const started = Object.fromEntries(endpoints.agents.map((a) => [a.name, a.url]));
          return drive(temporal, { ...demoAgents, ...started }, running.PLANNER_UI_URL);
        },
      });
    });
}

async function answersCard(baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/.well-known/agent-card.json`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Whether a planner worker polls the task queue (so the plan will run without one of ours). */
async function workerPolls(config: PlannerConfig): Promise<boolean> {
  const target = temporalTarget(config);
  const connection = await connectClient(target);
  try {
    const res = await connection.workflowService.describeTaskQueue({
      namespace: target.namespace,
      taskQueue: { name: config.PLANNER_TASK_QUEUE },
    });
    return (res.pollers?.length ?? 0) > 0;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}
