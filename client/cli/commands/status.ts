// planner status: one delegated task as JSON, its Temporal execution and its status query.
import { Command } from '@commander-js/extra-typings';
import { describeTask } from '../../inbox';
import { examples } from '../help';
import { printSnapshot } from '../task-outcome';
import { withClient } from '../temporal';

export function statusCommand() {
  return new Command('status')
    .description("show one delegated task as JSON: the workflow's Temporal status and the task's status query")
    .argument('<WORKFLOW_ID>', "the task's workflow id (as delegate printed it, or from the inbox)")
    .addHelpText(
      'after',
      '\nworkflowStatus is Temporal\'s (RUNNING, COMPLETED, FAILED, CANCELLED, ...); state, waitingOn, text and turn\ncome from the workflow. A failed task shows its failure, a completed one its artifacts. If no worker\nanswers the status query within 10 s, the JSON carries statusQueryError and the exit code is 1.',
    )
    .addHelpText('after', examples('planner status task-code-reviewer-3f0c9a52-8d1e-4f7e-9a51-0c2d6f1b7e44', "planner status task-deployer-0b7e6c1d-2a4f-4c3b-8e9d-5f6a7b8c9d0e | jq -r .state"))
    .action(async (workflowId) => {
      await withClient(async (client) => printSnapshot(await describeTask(client, workflowId)));
    });
}
