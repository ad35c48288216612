// The `planner` command line (bin/planner.js): run the planner, delegate tasks, and work the inbox of
// what waits on whom. Exit codes: 0 done; 1 a failure at run time (Temporal, the agent, a rejected
// answer, an unknown workflow id); 2 the command line or the environment is wrong and nothing was sent.
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import {
  CancelledFailure,
  Client,
  Connection,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { z } from 'zod';
import { loadConfig, type PlannerConfig } from '../worker/config';
import { connectClient, temporalTarget, temporalUnavailable, type TemporalTarget } from '../worker/temporal-connection';
import { DelegatedTaskInputSchema, DurationSchema, type DelegatedTaskInput } from '../workflows/delegated-task-input';
import type { Answer } from '../workflows/delegated-task-messages';
import { describeFailure } from '../workflows/failure-cause';
import { payloadSettings, plannerDataConverter } from '../payloads/data-converter';
import { readArtifact, writeArtifact } from './artifact';
import { answerTask, InvalidInputError, startDelegatedTask } from './delegated-task';
import { describeTask, listInbox, planIdProblem, requireTask, TaskNotFoundError, type TaskSnapshot } from './inbox';

/** The command line is wrong: exit 2, nothing was sent. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An expected failure at run time: exit 1 with this message and no stack. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}

type Values = Record<string, string | boolean | undefined>;

interface Args {
  values: Values;
  positionals: string[];
}

interface Command {
  /** One line for the overview. */
  summary: string;
  /** The synopsis, after "planner ". */
  usage: string;
  /** Flag and argument descriptions, shown by --help. */
  details: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  /** Names of the positional arguments, required ones first; `optional` of them may be left out. */
  positionals?: { names: string[]; optional?: number };
  run(args: Args): Promise<number>;
}

const ON_DEADLINE = ['remind', 'fail', 'cancel'] as const;

const COMMANDS = new Map<string, Command>([
  [
    'start',
    {
      summary: 'run the planner: a Temporal dev server (unless one answers at TEMPORAL_ADDRESS) and the workers',
      usage: 'start',
      details: `Same as \`npm start\`. The dev server keeps its data in .planner/ under the current directory,
its UI at http://127.0.0.1:8233. Ctrl-C stops everything it started.`,
      options: {},
      run: async () => {
        configOrUsage();
        await startPlanner();
        return 0;
      },
    },
  ],
  [
    'worker',
    {
      summary: "run the planner's workers only, against the Temporal server at TEMPORAL_ADDRESS",
      usage: 'worker',
      details: 'Serves PLANNER_TASK_QUEUE and <queue>-watch until SIGINT/SIGTERM, then drains.',
      options: {},
      run: async () => {
        configOrUsage();
        await runWorker();
        return 0;
      },
    },
  ],
  [
    'delegate',
    {
      summary: 'delegate a task to an A2A agent (starts a DelegatedTaskWorkflow)',
      usage: `delegate --agent NAME (--url URL | --card FILE) (--text TEXT | --data JSON) [--plan ID]
                 [--context-id ID] [--input-deadline DUR --on-input-deadline remind|fail|cancel]
                 [--auth-deadline DUR --on-auth-deadline remind|fail|cancel] [--id WORKFLOW_ID] [--wait]`,
      details: `  --agent NAME              the agent's name (letters, digits, ".", "_", "-"), used in ids and alerts
  --url URL                 the agent's base URL (its card is read from /.well-known/agent-card.json)
  --card FILE               the agent's card as a JSON file, instead of --url
  --text TEXT               the message to send
  --data JSON               a JSON value to send as a data part (with or without --text)
  --plan ID                 the plan this task belongs to (the inbox can filter by it)
  --context-id ID           an A2A context to continue
  --input-deadline DUR      how long a question may wait for an answer, e.g. 30m, 72h, 2d
  --on-input-deadline WHAT  then: remind (alert again), fail, or cancel (CancelTask, then fail)
  --auth-deadline DUR       how long an approval (AUTH_REQUIRED) may wait
  --on-auth-deadline WHAT   then: remind, fail or cancel
  --id WORKFLOW_ID          the workflow id (default: task-<agent>-<uuid>)
  --wait                    wait for the task to end and print its result as JSON
Prints the workflow id.`,
      options: {
        agent: { type: 'string' },
        url: { type: 'string' },
        card: { type: 'string' },
        text: { type: 'string' },
        data: { type: 'string' },
        plan: { type: 'string' },
        'context-id': { type: 'string' },
        'input-deadline': { type: 'string' },
        'on-input-deadline': { type: 'string' },
        'auth-deadline': { type: 'string' },
        'on-auth-deadline': { type: 'string' },
        id: { type: 'string' },
        wait: { type: 'boolean' },
      },
      run: delegate,
    },
  ],
  [
    'inbox',
    {
      summary: 'list the delegated tasks waiting on a human (a question) or an operator (an approval)',
      usage: 'inbox [--plan ID] [--json]',
      details: `  --plan ID   only the tasks of this plan
  --json      one JSON object per line instead of a table
Oldest wait first. Answer a question with \`planner answer\`; approvals travel outside A2A.`,
      options: { plan: { type: 'string' }, json: { type: 'boolean' } },
      run: inbox,
    },
  ],
  [
    'status',
    {
      summary: "show one delegated task: its status query and the workflow's Temporal status",
      usage: 'status WORKFLOW_ID',
      details: 'Prints JSON: workflowStatus (Temporal: RUNNING, COMPLETED, ...) and the task (state, waitingOn, text, turn, ...).',
      options: {},
      positionals: { names: ['WORKFLOW_ID'] },
      run: status,
    },
  ],
  [
    'answer',
    {
      summary: 'answer the question a delegated task waits on (INPUT_REQUIRED)',
      usage: 'answer WORKFLOW_ID TEXT [--turn N] [--data JSON]',
      details: `  TEXT        the answer (may be left out when --data is given)
  --turn N    the question turn this answers (see \`planner inbox\`); a stale turn is rejected
  --data JSON a JSON value to send as a data part
Prints the agent's state after the answer, as JSON. A rejected answer prints why and exits 1.`,
      options: { turn: { type: 'string' }, data: { type: 'string' } },
      positionals: { names: ['WORKFLOW_ID', 'TEXT'], optional: 1 },
      run: answer,
    },
  ],
  [
    'cancel',
    {
      summary: "cancel a delegated task (the agent's task is cancelled too) and wait until it closes",
      usage: 'cancel WORKFLOW_ID',
      details: 'Prints the final state as JSON, like `planner status`.',
      options: {},
      positionals: { names: ['WORKFLOW_ID'] },
      run: cancel,
    },
  ],
  [
    'artifact',
    {
      summary: 'write one artifact of a completed delegated task to stdout or a file',
      usage: 'artifact WORKFLOW_ID NAME [--out FILE]',
      details: `  NAME        the artifact's name (or its artifactId)
  --out FILE  write it to FILE instead of stdout
Text parts are written as UTF-8, raw (file) parts as their bytes, data parts as JSON, in order.`,
      options: { out: { type: 'string' } },
      positionals: { names: ['WORKFLOW_ID', 'NAME'] },
      run: ({ values, positionals }) =>
        withClient(async (client) => writeArtifact(await readArtifact(client, positionals[0]!, positionals[1]!), str(values, 'out'))),
    },
  ],
]);

// ---------------------------------------------------------------------------------------------
// Commands

async function delegate({ values }: Args): Promise<number> {
  const input = delegateInput(values);
  const workflowId = str(values, 'id');
  return withClient(async (client, config) => {
    let handle: Awaited<ReturnType<typeof startDelegatedTask>>;
    try {
      handle = await startDelegatedTask(client, input, { taskQueue: config.PLANNER_TASK_QUEUE, workflowId });
    } catch (e) {
      if (e instanceof WorkflowExecutionAlreadyStartedError) throw new CliFailure(`a workflow with id ${workflowId ?? e.workflowId} is already running`);
      throw e;
    }
    out(handle.workflowId);
    if (!values.wait) return 0;
    try {
      out(JSON.stringify(await handle.result(), null, 2));
      return 0;
    } catch (e) {
      if (e instanceof WorkflowFailedError) throw new CliFailure(`${handle.workflowId} ${endedHow(statusOf(e), describeFailure(e))}`);
      throw e;
    }
  });
}

async function inbox({ values }: Args): Promise<number> {
  const planId = checkedPlan(values);
  return withClient(async (client) => {
    const entries = await listInbox(client, { planId });
    const now = Date.now();
    if (values.json) {
      for (const e of entries) out(JSON.stringify({ ...e, waitingSince: e.waitingSince.toISOString(), ageSeconds: Math.max(0, Math.round((now - e.waitingSince.getTime()) / 1000)) }));
      return 0;
    }
    if (entries.length === 0) {
      out(planId ? `nothing of plan ${planId} waits on a human or an operator` : 'nothing waits on a human or an operator');
      return 0;
    }
    const rows = entries.map((e) => [
      e.workflowId,
      e.agent,
      e.waitingOn,
      e.waitingOn === 'human' && e.turn !== undefined ? String(e.turn) : '-',
      age(now - e.waitingSince.getTime()),
      e.statusQueryError ? `(status query failed: ${e.statusQueryError})` : clip(firstLine(e.text ?? ''), 100),
    ]);
    out(table(['WORKFLOW ID', 'AGENT', 'WAITING ON', 'TURN', 'AGE', 'QUESTION / APPROVAL'], rows));
    return 0;
  });
}

async function status({ positionals }: Args): Promise<number> {
  const [workflowId] = positionals as [string];
  return withClient(async (client) => printSnapshot(await describeTask(client, workflowId)));
}

async function answer({ values, positionals }: Args): Promise<number> {
  const [workflowId, text] = positionals as [string, string | undefined];
  const a: Answer = { from: `planner-cli:${whoami()}` };
  if (text !== undefined) {
    if (text.trim() === '') throw new UsageError('TEXT is empty');
    a.text = text;
  }
  const data = str(values, 'data');
  if (data !== undefined) a.data = parseJson('--data', data);
  if (a.text === undefined && a.data === undefined) throw new UsageError('missing the answer: give TEXT or --data');
  const turn = str(values, 'turn');
  if (turn !== undefined) {
    if (!/^[1-9]\d{0,8}$/.test(turn)) throw new UsageError(`bad --turn ${JSON.stringify(turn)}: a question turn, a whole number from 1`);
    a.turn = Number(turn);
  }
  return withClient(async (client) => {
    const desc = await requireTask(client, workflowId);
    if (desc.status.name !== 'RUNNING') throw new CliFailure(`${workflowId} ${await endedText(client, workflowId, '', 'already ')}; nothing to answer`);
    try {
      out(JSON.stringify(await answerTask(client, workflowId, a), null, 2));
      return 0;
    } catch (e) {
      if (e instanceof WorkflowNotFoundError) throw new TaskNotFoundError(workflowId);
      // The run may have ended while the answer was on its way: say how and why, not what the update saw.
      const now = await requireTask(client, workflowId).catch(() => undefined);
      if (now && now.status.name !== 'RUNNING') throw new CliFailure(`${workflowId} ${await endedText(client, workflowId, ' before the answer went through')}`);
      if (e instanceof WorkflowUpdateFailedError) throw new CliFailure(e.cause?.message ?? e.message);
      throw e;
    }
  });
}

async function cancel({ positionals }: Args): Promise<number> {
  const [workflowId] = positionals as [string];
  return withClient(async (client) => {
    const desc = await requireTask(client, workflowId);
    const handle = client.workflow.getHandle(workflowId);
    if (desc.status.name === 'CANCELLED') {
      err(`${workflowId} was already cancelled`);
      return printSnapshot(await describeTask(client, workflowId));
    }
    if (desc.status.name !== 'RUNNING') throw new CliFailure(`${workflowId} already closed as ${desc.status.name}; nothing to cancel`);
    await handle.cancel();
    err(`cancel requested; waiting for ${workflowId} to cancel the agent's task and close`);
    try {
      await handle.result();
    } catch (e) {
      if (!(e instanceof WorkflowFailedError)) throw e;
    }
    const snapshot = await describeTask(client, workflowId);
    const code = printSnapshot(snapshot);
    if (snapshot.workflowStatus !== 'CANCELLED') throw new CliFailure(`${workflowId} closed as ${snapshot.workflowStatus} before the cancellation took effect`);
    return code;
  });
}

// ---------------------------------------------------------------------------------------------
// delegate's input, from flags

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

function delegateInput(values: Values): DelegatedTaskInput {
  const name = required(values, 'agent');
  const url = str(values, 'url');
  const cardFile = str(values, 'card');
  if (url === undefined && cardFile === undefined) throw new UsageError('missing --url or --card: where is the agent?');
  if (url !== undefined && cardFile !== undefined) throw new UsageError('give --url or --card, not both');
  const text = str(values, 'text');
  const data = str(values, 'data');
  if (text === undefined && data === undefined) throw new UsageError('missing --text or --data: what should the agent do?');
  const input: DelegatedTaskInput = {
    agent: { name, ...(url !== undefined ? { url } : { card: readCard(cardFile!) as DelegatedTaskInput['agent']['card'] }) },
    message: {
      ...(text !== undefined ? { text } : {}),
      ...(data !== undefined ? { data: parseJson('--data', data) } : {}),
      ...(values['context-id'] !== undefined ? { contextId: str(values, 'context-id') } : {}),
    },
    ...(values.plan !== undefined ? { planId: checkedPlan(values) } : {}),
  };
  const inputPolicy = deadline(values, 'input');
  const authPolicy = deadline(values, 'auth');
  if (inputPolicy || authPolicy) input.policies = { ...(inputPolicy ? { input: inputPolicy } : {}), ...(authPolicy ? { auth: authPolicy } : {}) };
  const parsed = DelegatedTaskInputSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(flagIssues(parsed.error, values));
  return input;
}

/** --plan, usable in the inbox's visibility query. */
function checkedPlan(values: Values): string | undefined {
  const planId = str(values, 'plan');
  const why = planId === undefined ? undefined : planIdProblem(planId);
  if (why) throw new UsageError(`bad --plan ${JSON.stringify(planId)}: ${why}`);
  return planId;
}

function deadline(values: Values, kind: 'input' | 'auth'): { after: string; onDeadline: (typeof ON_DEADLINE)[number] } | undefined {
  const after = str(values, `${kind}-deadline`);
  const on = str(values, `on-${kind}-deadline`);
  if (after === undefined && on === undefined) return undefined;
  if (after === undefined) throw new UsageError(`--on-${kind}-deadline needs --${kind}-deadline DUR`);
  if (on === undefined) throw new UsageError(`--${kind}-deadline needs --on-${kind}-deadline remind|fail|cancel`);
  if (!DurationSchema.safeParse(after).success) {
    throw new UsageError(`bad --${kind}-deadline ${JSON.stringify(after)}: a duration such as 90s, 30m, 72h or 2d`);
  }
  if (!(ON_DEADLINE as readonly string[]).includes(on)) {
    throw new UsageError(`bad --on-${kind}-deadline ${JSON.stringify(on)}: remind, fail or cancel`);
  }
  return { after, onDeadline: on as (typeof ON_DEADLINE)[number] };
}

function readCard(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory' : (e as Error).message;
    throw new UsageError(`cannot read --card ${file}: ${why}`);
  }
  return parseJson(`--card ${file}`, text);
}

function flagIssues(error: z.ZodError, values: Values): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const match = FLAG_OF.find(([p]) => path === p || path.startsWith(`${p}.`));
      if (!match) return `${path || 'input'}: ${issue.message}`;
      const [p, flag] = match;
      const rest = path.slice(p.length + 1);
      const given = values[flag.slice(2)];
      const shown = typeof given === 'string' && flag !== '--card' && flag !== '--data' && flag !== '--text' ? ` ${JSON.stringify(given)}` : '';
      return `bad ${flag}${shown}${rest ? ` (at ${rest})` : ''}: ${issue.message}`;
    })
    .join('; ');
}

// ---------------------------------------------------------------------------------------------
// Plumbing

function configOrUsage(): PlannerConfig {
  try {
    return loadConfig();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

async function withClient(fn: (client: Client, config: PlannerConfig) => Promise<number>): Promise<number> {
  const config = configOrUsage();
  let connection: Connection;
  let target: TemporalTarget;
  try {
    target = temporalTarget(config);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  try {
    connection = await connectClient(target, { connectTimeout: '5s' });
  } catch (e) {
    throw new CliFailure(`cannot reach Temporal at ${target.describe} (TEMPORAL_ADDRESS, TEMPORAL_PROFILE): ${(e as Error).message}`);
  }
  try {
    const dataConverter = plannerDataConverter(payloadSettings(config)); // reads large payloads back from the blob store
    return await fn(new Client({ connection, namespace: target.namespace, dataConverter }), config);
  } catch (e) {
    const unavailable = temporalUnavailable(e, target.describe);
    throw unavailable ? new CliFailure(unavailable) : e;
  } finally {
    await connection.close();
  }
}

function printSnapshot(snapshot: TaskSnapshot): number {
  out(JSON.stringify(snapshot, null, 2));
  if (snapshot.statusQueryError) {
    err(`planner: ${snapshot.statusQueryError}`);
    return 1;
  }
  return 0;
}

/** The Temporal status a closed run's WorkflowFailedError stands for. */
function statusOf(e: WorkflowFailedError): string {
  if (e.cause instanceof CancelledFailure) return 'CANCELLED';
  if (e.cause instanceof TerminatedFailure) return 'TERMINATED';
  if (e.cause instanceof TimeoutFailure) return 'TIMED_OUT';
  return 'FAILED';
}

/**
 * How a closed run ended, for a sentence: "failed: <innermost cause>", "cancelled", "completed", ...
 * `when` goes between the how and the why ("failed before the answer went through: ...").
 */
function endedHow(status: string, failure: string | undefined, when = '', already = ''): string {
  switch (status) {
    case 'FAILED':
      return `${already}failed${when}: ${failure ?? 'no reason recorded'}`;
    case 'TERMINATED':
      return `was ${already}terminated${when}${failure ? `: ${failure.replace(/^TerminatedFailure: /, '')}` : ''}`;
    case 'CANCELLED':
      return `was ${already}cancelled${when}`;
    case 'TIMED_OUT':
      return `${already}timed out${when}`;
    default:
      return `${already}${status.toLowerCase().replace(/_/g, ' ')}${when}`;
  }
}

async function endedText(client: Client, workflowId: string, when = '', already = ''): Promise<string> {
  const s = await describeTask(client, workflowId);
  return endedHow(s.workflowStatus, s.failure, when, already);
}

function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

function required(values: Values, name: string): string {
  const v = str(values, name);
  if (v === undefined) throw new UsageError(`missing --${name}`);
  return v;
}

function parseJson(what: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UsageError(`bad JSON in ${what}: ${(e as Error).message}`);
  }
}

function whoami(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h${s % 3600 >= 60 ? ` ${Math.floor((s % 3600) / 60)}m` : ''}`;
  return `${Math.floor(s / 86400)}d`;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

function out(text: string): void {
  process.stdout.write(`${text}\n`);
}

function err(text: string): void {
  process.stderr.write(`${text}\n`);
}

// The long-running commands' modules are loaded on demand: they bring in @temporalio/worker,
// which the short commands (delegate, inbox, answer...) should not pay for.
/* eslint-disable @typescript-eslint/no-require-imports */
const startPlanner = (): Promise<void> => (require('../scripts/start') as typeof import('../scripts/start')).startPlanner();
const runWorker = (): Promise<void> => (require('../worker/main') as typeof import('../worker/main')).runWorker();
/* eslint-enable @typescript-eslint/no-require-imports */

// ---------------------------------------------------------------------------------------------
// Parsing and help

function overview(): string {
  const names = [...COMMANDS.keys(), 'help'];
  const width = Math.max(...names.map((n) => n.length));
  const lines = [...COMMANDS].map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `planner: a durable planner on Temporal that delegates tasks to remote A2A agents

Usage: planner <command> [flags]

Commands:
${lines.join('\n')}
  ${'help'.padEnd(width)}  show a command's flags: planner help <command> (or planner <command> --help)

Connection, as for the worker: TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default),
PLANNER_TASK_QUEUE (planner). Exit codes: 0 done, 1 failed, 2 bad command line (nothing was sent).`;
}

function helpOf(name: string, c: Command): string {
  return `planner ${name}: ${c.summary}\n\nUsage: planner ${c.usage}\n\n${c.details}`;
}

function parse(c: Command, argv: string[]): Args {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: c.options, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (e) {
    const message = parseArgsMessage(e as Error & { code?: string });
    const dash = c.positionals && /^unknown flag -/.test(message) ? ' (for an argument that starts with "-", put it after --)' : '';
    throw new UsageError(`${message}${dash}`);
  }
  const names = c.positionals?.names ?? [];
  const min = names.length - (c.positionals?.optional ?? 0);
  if (parsed.positionals.length < min) throw new UsageError(`missing ${names.slice(parsed.positionals.length, min).join(' ')}`);
  if (parsed.positionals.length > names.length) {
    const extra = parsed.positionals[names.length]!;
    const hint = names[names.length - 1] === 'TEXT' ? ' (quote text that has spaces)' : '';
    throw new UsageError(`unexpected argument ${JSON.stringify(extra)}${hint}`);
  }
  for (const [flag, v] of Object.entries(parsed.values)) {
    if (v === '') throw new UsageError(`--${flag} needs a value`);
  }
  return parsed;
}

function parseArgsMessage(e: Error & { code?: string }): string {
  const flag = /'(-[^' ]+)/.exec(e.message)?.[1] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${flag}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(e.message)) return `${flag} takes no value`;
      return `${flag} needs a value${/ambiguous/.test(e.message) ? ` (for a value that starts with "-", write ${flag}=VALUE)` : ''}`;
    default:
      return e.message.split('\n')[0] ?? e.message;
  }
}

/** Runs one command line; resolves to the exit code. Expected failures print one line, never a stack. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    err(overview());
    return 2;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const topic = rest[0];
    if (topic === undefined) {
      out(overview());
      return 0;
    }
    const c = COMMANDS.get(topic);
    if (!c) {
      err(`planner help: unknown command ${JSON.stringify(topic)} (commands: ${[...COMMANDS.keys()].join(', ')})`);
      return 2;
    }
    out(helpOf(topic, c));
    return 0;
  }
  const command = COMMANDS.get(name);
  if (!command) {
    err(`planner: unknown command ${JSON.stringify(name)} (commands: ${[...COMMANDS.keys()].join(', ')}, help)`);
    return 2;
  }
  const beforeTerminator = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (beforeTerminator.includes('--help') || beforeTerminator.includes('-h')) {
    out(helpOf(name, command));
    return 0;
  }
  try {
    return await command.run(parse(command, rest));
  } catch (e) {
    return report(name, e);
  }
}

function report(name: string, e: unknown): number {
  if (e instanceof UsageError || e instanceof InvalidInputError) {
    err(`planner ${name}: ${e.message} (see planner ${name} --help)`);
    return 2;
  }
  err(`planner ${name}: ${e instanceof Error ? e.message : String(e)}`);
  if (process.env.PLANNER_CLI_DEBUG && e instanceof Error && !(e instanceof CliFailure) && !(e instanceof TaskNotFoundError)) err(e.stack ?? '');
  return 1;
}

/** bin/planner.js: run process.argv and exit with the command's code. */
export function runMain(): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      err(`planner: ${e instanceof Error ? e.message : String(e)}`);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) runMain();
