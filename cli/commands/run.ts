// planner run: start a plan from a plan file; with --wait, follow it to its end, one line per step
// and change of state, the question or the approval text when a step waits, then the artifacts.
import { Command } from '@commander-js/extra-typings';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { followPlan } from '../../client/follow-plan';
import { InvalidPlanError, startPlan, type PlanSnapshot } from '../../client/plan';
import { outcome, transitions } from '../../client/plan-progress';
import { CliFailure, UsageError } from '../errors';
import { keyValue } from '../flags';
import { examples } from '../help';
import { out, outputOption, printJson } from '../output';
import { withClient } from '../temporal';
import { uiLink } from '../workflow-kind';

export function runCommand() {
  return new Command('run')
    .description('start a plan from a plan file (YAML or JSON); --wait follows it to its end')
    .argument('<PLAN_FILE>', 'the plan file, e.g. demo/plans/release.yaml (docs/plans.md)')
    .option('--input <NAME=VALUE>', 'a value for one of the plan\'s inputs (repeatable); defaults fill the rest', keyValue('--input'))
    .option('--agent-url <NAME=URL>', "replace an agent's URL from the plan (repeatable), e.g. to use staging agents", keyValue('--agent-url'))
    .option('--id <PLAN_ID>', 'the plan id, which is also its workflow id (default plan-<name>-<8 hex>)')
    .option('--wait', 'follow the plan until it ends; exit 0 when it completed, 1 otherwise')
    .addOption(outputOption())
    .addHelpText(
      'after',
      `
Prints the plan id. With --wait, prints a line per step and change of state (with the question and
the command that answers it, or the approval request), then the artifacts and the Temporal UI link.
A plan that cannot run (bad file, unknown agent, cycle, missing input...) is refused before anything
starts, with the field and the line (exit 2). -o json prints {planId} (with --wait: the plan as it
ended, as \`planner status -o json\` shows it) as one JSON document, and no progress lines.`,
    )
    .addHelpText(
      'after',
      examples(
        'planner run demo/plans/release.yaml --wait',
        'planner run demo/plans/release.yaml --input build=2026.10.07-2 --id release-2026-10-07',
        'planner run release.yaml --agent-url deployer=http://127.0.0.1:9999 --wait',
      ),
    )
    .action(async (file, { input, agentUrl, id, wait, output }) => {
      await withClient(async (client, config) => {
        let planId: string;
        try {
          ({ planId } = await startPlan(client, { planFile: file }, { inputs: input, agentUrls: agentUrl, planId: id }, { taskQueue: config.PLANNER_TASK_QUEUE }));
        } catch (e) {
          if (e instanceof InvalidPlanError) throw new UsageError(e.message);
          if (e instanceof WorkflowExecutionAlreadyStartedError) throw new CliFailure(`a plan with id ${id ?? e.workflowId} already exists; choose another --id`);
          throw e;
        }
        const json = output === 'json';
        if (!wait) return json ? printJson({ planId }) : out(planId);
        if (!json) out(planId);
        let last: PlanSnapshot | undefined;
        for await (const s of followPlan(client, planId)) {
          if (!json) for (const line of transitions(last, s)) out(line);
          last = s;
        }
        if (json) printJson(last);
        else for (const line of outcome(last!, uiLink(config.PLANNER_UI_URL, config.TEMPORAL_NAMESPACE, planId))) out(line);
        if (last!.workflowStatus !== 'COMPLETED') throw new CliFailure(`plan ${planId} did not complete (${last!.workflowStatus.toLowerCase()})`);
      });
    });
}
