// planner answer: answer the question a plan's step or a delegated task waits on (INPUT_REQUIRED),
// through the task workflow's `answer` update; the answer goes out on the same A2A task and context.
// An update needs a worker to be taken, so when none polls the queue the answer goes as the durable
// `answer` signal instead, and the command says so and exits 3 rather than wait in silence.
import { userInfo } from 'node:os';
import { Command } from '@commander-js/extra-typings';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import type { Answer } from '../../workflows/delegated-task/messages';
import { answerTask, DelegatedTaskNotFoundError, recordAnswer, requireTask } from '../../client/delegated-task';
import { answerStep, recordStepAnswer, StepNotWaitingError } from '../../client/plan';
import { workerRuns } from '../../client/workflows';
import { AnswerNotSentYet, CliFailure, UsageError } from '../errors';
import { jsonData, questionTurn } from '../flags';
import { examples } from '../help';
import { outputOption, print, type OutputFormat } from '../output';
import { answerText } from '../texts';
import { endedText } from '../task-outcome';
import { withClient } from '../temporal';
import { workflowKind } from '../workflow-kind';

export function answerCommand() {
  return new Command('answer')
    .description('answer the question a plan step or a delegated task waits on (INPUT_REQUIRED)')
    .usage('<PLAN_ID> <STEP_ID> [TEXT] [options]  |  <WORKFLOW_ID> [TEXT] [options]')
    .argument('<PLAN_OR_WORKFLOW_ID>', 'a plan id (then the step), or the workflow id of the task waiting on the question')
    .argument('[STEP_OR_TEXT]', "the plan's step that asks, or (for a task id) the answer")
    .argument('[TEXT]', 'the answer to a plan step (may be left out when --data is given)')
    .option('--turn <N>', 'the question turn this answers (see `planner inbox`); a stale turn is rejected', questionTurn)
    .option('--data <JSON>', 'a JSON value to send as a data part', jsonData)
    .addOption(outputOption())
    .addHelpText(
      'after',
      "\nPrints the answer's question, the agent's state after it and the next step (-o json: the state as JSON).\nA rejected answer prints why and exits 1. When no\n" +
        'worker polls the workflow\'s task queue, the answer is recorded (as the `answer` signal) and sent when a\n' +
        'worker starts; the command says so and exits 3.',
    )
    .addHelpText(
      'after',
      examples(
        'planner answer plan-release-1a2b3c4d review main',
        'planner answer task-code-reviewer-3f0c9a52-8d1e-4f7e-9a51-0c2d6f1b7e44 main --turn 1',
        "planner answer task-code-reviewer-3f0c9a52-8d1e-4f7e-9a51-0c2d6f1b7e44 --data '{\"baseBranch\":\"main\"}'",
      ),
    )
    .action(async (id, second, third, { turn, data, output }) => {
      if (second === undefined && data === undefined) throw new UsageError('missing the answer: give TEXT or --data');
      const answer: Answer = { from: `planner-cli:${whoami()}`, ...(data !== undefined ? { data } : {}), ...(turn !== undefined ? { turn } : {}) };
      await withClient(async (client) => {
        const { kind, desc } = await workflowKind(client, id);
        if (kind === 'plan') {
          if (second === undefined) throw new UsageError(`missing STEP_ID: which step of plan ${id} does this answer?`);
          const a = withText(answer, third);
          if (desc.status.name === 'RUNNING' && !(await workerRuns(client, desc))) {
            await recordStepAnswer(client, desc, second, a);
            throw notSentYet(desc, `the answer to step ${second} is recorded with the plan, which checks it against the step's question`);
          }
          await answerPlanStep(client, id, second, a, output);
        } else {
          if (third !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(third)}: ${id} is a delegated task, not a plan (quote text that has spaces)`);
          await answerDelegatedTask(client, id, withText(answer, second), output);
        }
      });
    });
}

function withText(answer: Answer, text: string | undefined): Answer {
  if (text !== undefined && text.trim() === '') throw new UsageError('TEXT is empty');
  const a = text !== undefined ? { ...answer, text } : answer;
  if (a.text === undefined && a.data === undefined) throw new UsageError('missing the answer: give TEXT or --data');
  return a;
}

async function answerPlanStep(client: Client, planId: string, stepId: string, answer: Answer, output: OutputFormat): Promise<void> {
  try {
    print(output, await answerStep(client, planId, stepId, answer), (r) => answerText({ planId, stepId }, r));
  } catch (e) {
    if (e instanceof StepNotWaitingError) throw new CliFailure(e.message);
    throw e;
  }
}

async function answerDelegatedTask(client: Client, workflowId: string, answer: Answer, output: OutputFormat): Promise<void> {
  const desc = await requireTask(client, workflowId);
  if (desc.status.name !== 'RUNNING') throw new CliFailure(`${workflowId} ${await endedText(client, workflowId, '', 'already ')}; nothing to answer`);
  if (!(await workerRuns(client, desc))) {
    const recorded = await recordAnswer(client, desc, answer);
    if (!recorded.recorded) throw new CliFailure(`answer rejected: ${recorded.reason}`);
    throw notSentYet(desc, `the answer to question ${recorded.turn} is recorded`);
  }
  try {
    print(output, await answerTask(client, workflowId, answer), (r) => answerText({ workflowId }, r));
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) throw new DelegatedTaskNotFoundError(workflowId);
    // The run may have ended while the answer was on its way: say how and why, not what the update saw.
    const now = await requireTask(client, workflowId).catch(() => undefined);
    if (now && now.status.name !== 'RUNNING') throw new CliFailure(`${workflowId} ${await endedText(client, workflowId, ' before the answer went through')}`);
    if (e instanceof WorkflowUpdateFailedError) throw new CliFailure(e.cause?.message ?? e.message);
    throw e;
  }
}

function notSentYet(desc: WorkflowExecutionDescription, recorded: string): AnswerNotSentYet {
  return new AnswerNotSentYet(`no worker is polling task queue ${JSON.stringify(desc.taskQueue)}: ${recorded} and will be sent when a worker starts`);
}

function whoami(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}
