// planner status: a plan (its steps, states, questions, artifacts) or one delegated task; -o json for programs.
import { Command } from '@commander-js/extra-typings';
import { describeTask } from '../../client/delegated-task';
import { describePlan } from '../../client/plan';
import { CliFailure } from '../errors';
import { examples } from '../help';
import { outputOption, print } from '../output';
import { planText, taskText } from '../texts';
import { withClient } from '../temporal';
import { workflowKind } from '../workflow-kind';

export function statusCommand() {
  return new Command('status')
    .description("show a plan (every step's state, question and turn) or one delegated task, and what to do next")
    .argument('<PLAN_OR_WORKFLOW_ID>', "a plan id (as run printed it), or a task's workflow id (as delegate printed it, or from the inbox)")
    .addOption(outputOption())
    .addHelpText(
      'after',
      '\nWith -o json: workflowStatus is Temporal\'s (RUNNING, COMPLETED, FAILED, CANCELLED, ...); the rest comes from the\nworkflow\'s status query. A finished plan shows its result (each step\'s state, text and artifacts), a\nfinished task its artifacts or its failure. If no worker answers the status query within 10 s, the\nJSON carries statusQueryError and the exit code is 1.',
    )
    .addHelpText(
      'after',
      examples(
        'planner status plan-release-1a2b3c4d',
        "planner status plan-release-1a2b3c4d -o json | jq '.steps[] | {id, state, waitingOn, text}'",
        'planner status task-code-reviewer-3f0c9a52-8d1e-4f7e-9a51-0c2d6f1b7e44',
      ),
    )
    .action(async (id, { output }) => {
      await withClient(async (client) => {
        let problem: string | undefined;
        if ((await workflowKind(client, id)).kind === 'task') {
          const task = await describeTask(client, id);
          print(output, task, taskText);
          problem = task.statusQueryError;
        } else {
          const plan = await describePlan(client, id);
          print(output, plan, planText);
          problem = plan.statusQueryError;
        }
        if (problem) throw new CliFailure(problem);
      });
    });
}
