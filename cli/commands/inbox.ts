// planner inbox: what waits on whom — running delegated tasks waiting on a human (a question), an
// operator (an approval) or the agent (its reply, its work: the age says whether that is news), oldest first.
import { Command } from '@commander-js/extra-typings';
import { listInbox } from '../../client/inbox';
import { planId } from '../flags';
import { examples } from '../help';
import { age, clip, firstLine, out, outputOption, printJson, table } from '../output';
import { withClient } from '../temporal';

export function inboxCommand() {
  return new Command('inbox')
    .description("list what waits on whom: plans' steps and delegated tasks waiting on a human (a question), an operator (an approval) or the agent (its reply or its work)")
    .option('--plan <ID>', 'only the tasks of this plan', planId)
    .addOption(outputOption())
    .addHelpText('after', '\nOldest wait first; -o json prints them as one JSON array, with the full text. Answer a question with `planner answer PLAN_ID STEP_ID TEXT` (a plan step) or `planner answer WORKFLOW_ID TEXT`; approvals travel outside A2A (follow the agent\'s link).')
    .addHelpText('after', examples('planner inbox', 'planner inbox --plan release-42', "planner inbox -o json | jq -r '.[] | select(.waitingOn == \"human\") | .workflowId'"))
    .action(async ({ plan, output }) => {
      await withClient(async (client) => {
        const entries = await listInbox(client, { planId: plan });
        const now = Date.now();
        if (output === 'json') {
          return printJson(entries.map((e) => ({ ...e, waitingSince: e.waitingSince.toISOString(), ageSeconds: Math.max(0, Math.round((now - e.waitingSince.getTime()) / 1000)) })));
        }
        if (entries.length === 0) {
          out(plan ? `nothing of plan ${plan} waits` : 'nothing waits on a human, an operator or an agent');
          return;
        }
        const rows = entries.map((e) => [
          e.workflowId,
          e.agent,
          e.stepId ?? '-',
          e.waitingOn,
          e.waitingOn === 'human' && e.turn !== undefined ? String(e.turn) : '-',
          age(now - e.waitingSince.getTime()),
          e.statusQueryError ? `(status query failed: ${e.statusQueryError})` : clip(firstLine(e.text ?? ''), 100),
        ]);
        out(table(['WORKFLOW ID', 'AGENT', 'STEP', 'WAITING ON', 'TURN', 'AGE', 'QUESTION / APPROVAL / WORK'], rows));
      });
    });
}
