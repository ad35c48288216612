// planner answer: answer the question a delegated task waits on (INPUT_REQUIRED), through the
// workflow's `answer` update; the answer goes out on the same A2A task and context.
import { userInfo } from 'node:os';
import { Command } from '@commander-js/extra-typings';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Answer } from '../../../workflows/delegated-task-messages';
import { answerTask } from '../../delegated-task';
import { requireTask, TaskNotFoundError } from '../../inbox';
import { CliFailure, UsageError } from '../errors';
import { jsonData, questionTurn } from '../flags';
import { examples } from '../help';
import { printJson } from '../output';
import { endedText } from '../task-outcome';
import { withClient } from '../temporal';

export function answerCommand() {
  return new Command('answer')
    .description('answer the question a delegated task waits on (INPUT_REQUIRED)')
    .argument('<WORKFLOW_ID>', 'the task waiting on the question')
    .argument('[TEXT]', 'the answer (may be left out when --data is given)')
    .option('--turn <N>', 'the question turn this answers (see `planner inbox`); a stale turn is rejected', questionTurn)
    .option('--data <JSON>', 'a JSON value to send as a data part', jsonData)
    .addHelpText('after', "\nPrints the agent's state after the answer, as JSON. A rejected answer prints why and exits 1.")
    .addHelpText(
      'after',
      examples(
        'planner answer task-code-reviewer-3f0c9a52-8d1e-4f7e-9a51-0c2d6f1b7e44 main --turn 1',
        "planner answer task-code-reviewer-3f0c9a52-8d1e-4f7e-9a51-0c2d6f1b7e44 --data '{\"baseBranch\":\"main\"}'",
      ),
    )
    .action(async (workflowId, text, { turn, data }) => {
      const answer: Answer = { from: `planner-cli:${whoami()}` };
      if (text !== undefined) {
        if (text.trim() === '') throw new UsageError('TEXT is empty');
        answer.text = text;
      }
      if (data !== undefined) answer.data = data;
      if (answer.text === undefined && answer.data === undefined) throw new UsageError('missing the answer: give TEXT or --data');
      if (turn !== undefined) answer.turn = turn;
      await withClient(async (client) => {
        const desc = await requireTask(client, workflowId);
        if (desc.status.name !== 'RUNNING') throw new CliFailure(`${workflowId} ${await endedText(client, workflowId, '', 'already ')}; nothing to answer`);
        try {
          printJson(await answerTask(client, workflowId, answer));
        } catch (e) {
          if (e instanceof WorkflowNotFoundError) throw new TaskNotFoundError(workflowId);
          // The run may have ended while the answer was on its way: say how and why, not what the update saw.
          const now = await requireTask(client, workflowId).catch(() => undefined);
          if (now && now.status.name !== 'RUNNING') throw new CliFailure(`${workflowId} ${await endedText(client, workflowId, ' before the answer went through')}`);
          if (e instanceof WorkflowUpdateFailedError) throw new CliFailure(e.cause?.message ?? e.message);
          throw e;
        }
      });
    });
}

function whoami(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}
