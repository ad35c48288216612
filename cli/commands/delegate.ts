// planner delegate: start a DelegatedTaskWorkflow from flags; with --wait, wait for its result.
import { Command } from '@commander-js/extra-typings';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import type { z } from 'zod';
import { DelegatedTaskInputSchema, type DelegatedTaskInput } from '../../workflows/delegated-task/input';
import { describeFailure } from '../../workflows/failure-cause';
import { startDelegatedTask } from '../../client/delegated-task';
import { CliFailure, UsageError } from '../errors';
import { deadlinePolicy, duration, jsonData, planId, readJsonFile, type DeadlinePolicy } from '../flags';
import { examples } from '../help';
import { out, outputOption, printJson } from '../output';
import { stateWords } from '../texts';
import { endedHow, executionStatusOf } from '../task-outcome';
import { withClient } from '../temporal';

export function delegateCommand() {
  return new Command('delegate')
    .description('delegate a task to an A2A agent (starts a DelegatedTaskWorkflow) and print its workflow id')
    .usage('--agent NAME (--url URL | --card FILE) (--text TEXT | --data JSON) [options]')
    // Checked in the action, not with requiredOption: commander would report a missing --agent
    // before an unknown flag, and "--agnet" deserves "did you mean --agent?".
    .option('--agent <NAME>', 'required: the agent\'s name (letters, digits, ".", "_", "-"), used in ids and alerts')
    .option('--url <URL>', "the agent's base URL (its card is read from /.well-known/agent-card.json)")
    .option('--card <FILE>', "the agent's card as a JSON file, instead of --url")
    .option('--text <TEXT>', 'the message to send')
    .option('--data <JSON>', 'a JSON value to send as a data part (with or without --text)', jsonData)
    .option('--plan <ID>', 'the plan this task belongs to (the inbox can filter by it)', planId)
    .option('--context-id <ID>', 'an A2A context to continue')
    .option('--input-deadline <DUR>', 'how long a question may wait for an answer, e.g. 30m, 72h, 2d', duration('--input-deadline'))
    .option('--on-input-deadline <WHAT>', 'then: remind (alert again), fail, or cancel (CancelTask, then fail)', deadlinePolicy('--on-input-deadline'))
    .option('--auth-deadline <DUR>', 'how long an approval (AUTH_REQUIRED) may wait', duration('--auth-deadline'))
    .option('--on-auth-deadline <WHAT>', 'then: remind, fail or cancel', deadlinePolicy('--on-auth-deadline'))
    .option('--id <WORKFLOW_ID>', 'the workflow id (default: task-<agent>-<uuid>)')
    .option('--wait', 'wait for the task to end and print its result (exit 1 if it failed or was cancelled)')
    .addOption(outputOption())
    .addHelpText('after', '\nPrints the workflow id; with --wait, then how the task ended, its text and artifacts.\n-o json prints {workflowId} (with --wait: {workflowId, result}) as one JSON document.')
    .addHelpText(
      'after',
      examples(
        "planner delegate --agent code-reviewer --url http://127.0.0.1:41241 --text 'Please review: +const a = 1;'",
        "planner delegate --agent deployer --card deployer-card.json --data '{\"version\":\"1.4.2\"}' --plan release-42 --wait",
        'planner delegate --agent code-reviewer --url http://127.0.0.1:41241 --text "$(git diff main)" \\',
        '  --input-deadline 4h --on-input-deadline remind',
      ),
    )
    .action(async (flags) => {
      const input = delegateInput(flags);
      await withClient(async (client, config) => {
        let handle: Awaited<ReturnType<typeof startDelegatedTask>>;
        try {
          handle = await startDelegatedTask(client, input, { taskQueue: config.PLANNER_TASK_QUEUE, workflowId: flags.id });
        } catch (e) {
          if (e instanceof WorkflowExecutionAlreadyStartedError) throw new CliFailure(`a workflow with id ${flags.id ?? e.workflowId} is already running`);
          throw e;
        }
        const json = flags.output === 'json';
        if (!flags.wait) return json ? printJson({ workflowId: handle.workflowId }) : out(handle.workflowId);
        if (!json) out(handle.workflowId);
        try {
          const result = await handle.result();
          if (json) return printJson({ workflowId: handle.workflowId, result });
          out(`${result.kind === 'message' ? 'the agent replied with a message (no task)' : `the agent's task is ${stateWords(result.state)}`}${result.text ? `: ${result.text}` : ''}`);
          for (const a of result.artifacts) out(`  artifact ${a.name ?? a.artifactId} (planner artifact ${handle.workflowId} ${a.name ?? a.artifactId})`);
        } catch (e) {
          if (e instanceof WorkflowFailedError) throw new CliFailure(`${handle.workflowId} ${endedHow(executionStatusOf(e), describeFailure(e))}`);
          throw e;
        }
      });
    });
}

interface DelegateFlags {
  agent?: string;
  url?: string;
  card?: string;
  text?: string;
  data?: unknown;
  plan?: string;
  contextId?: string;
  inputDeadline?: string;
  onInputDeadline?: DeadlinePolicy;
  authDeadline?: string;
  onAuthDeadline?: DeadlinePolicy;
}

/** The workflow's input from the flags, checked with the workflow's own schema. */
export function delegateInput(flags: DelegateFlags): DelegatedTaskInput {
  const { agent, url, card: cardFile, text, data } = flags;
  if (agent === undefined) throw new UsageError('missing --agent');
  if (url === undefined && cardFile === undefined) throw new UsageError('missing --url or --card: where is the agent?');
  if (url !== undefined && cardFile !== undefined) throw new UsageError('give --url or --card, not both');
  if (text === undefined && data === undefined) throw new UsageError('missing --text or --data: what should the agent do?');
  const input: DelegatedTaskInput = {
    agent: { name: agent, ...(url !== undefined ? { url } : { card: readJsonFile('--card', cardFile!) as DelegatedTaskInput['agent']['card'] }) },
    message: {
      ...(text !== undefined ? { text } : {}),
      ...(data !== undefined ? { data } : {}),
      ...(flags.contextId !== undefined ? { contextId: flags.contextId } : {}),
    },
    ...(flags.plan !== undefined ? { planId: flags.plan } : {}),
  };
  const inputPolicy = deadline('input', flags.inputDeadline, flags.onInputDeadline);
  const authPolicy = deadline('auth', flags.authDeadline, flags.onAuthDeadline);
  if (inputPolicy || authPolicy) input.policies = { ...(inputPolicy ? { input: inputPolicy } : {}), ...(authPolicy ? { auth: authPolicy } : {}) };
  const parsed = DelegatedTaskInputSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(flagIssues(parsed.error, flags));
  return input;
}

function deadline(kind: 'input' | 'auth', after: string | undefined, onDeadline: DeadlinePolicy | undefined): { after: string; onDeadline: DeadlinePolicy } | undefined {
  if (after === undefined && onDeadline === undefined) return undefined;
  if (after === undefined) throw new UsageError(`--on-${kind}-deadline needs --${kind}-deadline DUR`);
  if (onDeadline === undefined) throw new UsageError(`--${kind}-deadline needs --on-${kind}-deadline remind|fail|cancel`);
  return { after, onDeadline };
}

/** Where each input field comes from, to name the flag when the schema rejects a value. */
const FLAG_OF: Array<[path: string, flag: string]> = [
  ['agent.name', '--agent'],
  ['agent.url', '--url'],
  ['agent.card', '--card'],
  ['agent', '--url or --card'],
  ['message.text', '--text'],
  ['message.data', '--data'],
  ['message.contextId', '--context-id'],
  ['message', '--text or --data'],
  ['planId', '--plan'],
  ['policies.input.after', '--input-deadline'],
  ['policies.input.onDeadline', '--on-input-deadline'],
  ['policies.auth.after', '--auth-deadline'],
  ['policies.auth.onDeadline', '--on-auth-deadline'],
];

/** Values worth echoing in an error; --text, --data and --card can be long. */
const ECHOED: Partial<Record<string, keyof DelegateFlags>> = { '--agent': 'agent', '--url': 'url', '--context-id': 'contextId', '--plan': 'plan' };

function flagIssues(error: z.ZodError, flags: DelegateFlags): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const match = FLAG_OF.find(([p]) => path === p || path.startsWith(`${p}.`));
      if (!match) return `${path || 'input'}: ${issue.message}`;
      const [p, flag] = match;
      const rest = path.slice(p.length + 1);
      const key = ECHOED[flag];
      const given = key ? flags[key] : undefined;
      const shown = typeof given === 'string' ? ` ${JSON.stringify(given)}` : '';
      return `bad ${flag}${shown}${rest ? ` (at ${rest})` : ''}: ${issue.message}`;
    })
    .join('; ');
}
