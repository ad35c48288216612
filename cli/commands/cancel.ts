// planner cancel: cancel a plan (its steps cancel their agents' tasks) or one delegated task (which
// sends CancelTask to the agent), and wait until it closes.
import { Command } from '@commander-js/extra-typings';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { describeTask } from '../../client/delegated-task';
import { describePlan } from '../../client/plan';
import { CliFailure } from '../errors';
import { examples } from '../help';
import { err, outputOption, print } from '../output';
import { planText, taskText } from '../texts';
import { withClient } from '../temporal';
import { workflowKind } from '../workflow-kind';

export function cancelCommand() {
  return new Command('cancel')
    .description("cancel a plan or a delegated task (the agents' tasks are cancelled too) and wait until it closes")
    .argument('<PLAN_OR_WORKFLOW_ID>', 'a plan id, or a delegated task workflow id')
    .addOption(outputOption())
    .addHelpText('after', '\nPrints the final state like `planner status` (-o json: the same JSON).')
    .addHelpText('after', examples('planner cancel plan-release-1a2b3c4d', 'planner cancel task-deployer-0b7e6c1d-2a4f-4c3b-8e9d-5f6a7b8c9d0e'))
    .action(async (id, { output }) => {
      await withClient(async (client) => {
        const { kind, desc } = await workflowKind(client, id);
        const show = async (): Promise<{ workflowStatus: string }> => {
          if (kind === 'task') {
            const s = await describeTask(client, id);
            print(output, s, taskText);
            if (s.statusQueryError) throw new CliFailure(s.statusQueryError);
            return s;
          }
          const s = await describePlan(client, id);
          print(output, s, planText);
          return s;
        };
        if (desc.status.name === 'CANCELLED') {
          err(`${id} was already cancelled`);
          await show();
          return;
        }
        if (desc.status.name !== 'RUNNING') throw new CliFailure(`${id} already closed as ${desc.status.name}; nothing to cancel`);
        await requestAndWait(client, id, kind === 'plan' ? "its steps to cancel their agents' tasks" : "the agent's task to be cancelled");
        const s = await show();
        if (s.workflowStatus !== 'CANCELLED') throw new CliFailure(`${id} closed as ${s.workflowStatus} before the cancellation took effect`);
      });
    });
}

async function requestAndWait(client: Client, id: string, what: string): Promise<void> {
  const handle = client.workflow.getHandle(id);
  await handle.cancel();
  err(`cancel requested; waiting for ${what} and ${id} to close`);
  try {
    await handle.result();
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
  }
}
