// planner cancel: cancel a delegated task's workflow, which sends CancelTask to the agent, and wait
// until the workflow closes.
import { Command } from '@commander-js/extra-typings';
import { WorkflowFailedError } from '@temporalio/client';
import { describeTask, requireTask } from '../../inbox';
import { CliFailure } from '../errors';
import { examples } from '../help';
import { err } from '../output';
import { printSnapshot } from '../task-outcome';
import { withClient } from '../temporal';

export function cancelCommand() {
  return new Command('cancel')
    .description("cancel a delegated task (the agent's task is cancelled too) and wait until it closes")
    .argument('<WORKFLOW_ID>', 'the task to cancel')
    .addHelpText('after', '\nPrints the final state as JSON, like `planner status`.')
    .addHelpText('after', examples('planner cancel task-deployer-0b7e6c1d-2a4f-4c3b-8e9d-5f6a7b8c9d0e'))
    .action(async (workflowId) => {
      await withClient(async (client) => {
        const desc = await requireTask(client, workflowId);
        if (desc.status.name === 'CANCELLED') {
          err(`${workflowId} was already cancelled`);
          return printSnapshot(await describeTask(client, workflowId));
        }
        if (desc.status.name !== 'RUNNING') throw new CliFailure(`${workflowId} already closed as ${desc.status.name}; nothing to cancel`);
        const handle = client.workflow.getHandle(workflowId);
        await handle.cancel();
        err(`cancel requested; waiting for ${workflowId} to cancel the agent's task and close`);
        try {
          await handle.result();
        } catch (e) {
          if (!(e instanceof WorkflowFailedError)) throw e;
        }
        const snapshot = await describeTask(client, workflowId);
        printSnapshot(snapshot);
        if (snapshot.workflowStatus !== 'CANCELLED') throw new CliFailure(`${workflowId} closed as ${snapshot.workflowStatus} before the cancellation took effect`);
      });
    });
}
