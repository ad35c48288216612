/* eslint-disable @typescript-eslint/no-require-imports -- loading on demand is the point; import() would bypass tsx's CommonJS hook */
// The commands, in the order help lists them, each with the one line help shows and a loader.
// A command's module (and what it imports: the Temporal client alone takes most of a second to
// load) is loaded only when that command runs, so `planner --help` loads none of them. A new command
// is one file in commands/ and one entry here; test/cli-usage.test.ts checks that each summary is
// the command's own description.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

export interface CommandEntry {
  name: string;
  aliases: string[];
  /** The command's description, as help lists it. */
  summary: string;
  load: () => CommandUnknownOpts;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'dev',
    aliases: ['start'],
    summary: 'run the whole planner here: a Temporal dev server (unless one answers), the workers and the demo agents',
    load: () => (require('./commands/dev') as typeof import('./commands/dev')).devCommand(),
  },
  { name: 'demo', aliases: [], summary: "run the seed's plan: review a diff (answer its question), then deploy a build (approve it)", load: () => (require('./commands/demo') as typeof import('./commands/demo')).demoCommand() },
  { name: 'run', aliases: [], summary: 'start a plan from a plan file (YAML or JSON); --wait follows it to its end', load: () => (require('./commands/run') as typeof import('./commands/run')).runCommand() },
  { name: 'plan', aliases: [], summary: 'work with plan files: planner plan check FILE', load: () => (require('./commands/plan') as typeof import('./commands/plan')).planCommand() },
  {
    name: 'inbox',
    aliases: [],
    summary: "list what waits on whom: plans' steps and delegated tasks waiting on a human (a question), an operator (an approval) or the agent (its reply or its work)",
    load: () => (require('./commands/inbox') as typeof import('./commands/inbox')).inboxCommand(),
  },
  { name: 'status', aliases: [], summary: "show a plan (every step's state, question and turn) or one delegated task, and what to do next", load: () => (require('./commands/status') as typeof import('./commands/status')).statusCommand() },
  { name: 'answer', aliases: [], summary: 'answer the question a plan step or a delegated task waits on (INPUT_REQUIRED)', load: () => (require('./commands/answer') as typeof import('./commands/answer')).answerCommand() },
  {
    name: 'cancel',
    aliases: [],
    summary: "cancel a plan or a delegated task (the agents' tasks are cancelled too) and wait until it closes",
    load: () => (require('./commands/cancel') as typeof import('./commands/cancel')).cancelCommand(),
  },
  {
    name: 'artifacts',
    aliases: [],
    summary: "write the artifacts of a plan's completed steps (or of a completed delegated task) to files",
    load: () => (require('./commands/artifacts') as typeof import('./commands/artifacts')).artifactsCommand(),
  },
  { name: 'artifact', aliases: [], summary: 'write one artifact of a completed delegated task to stdout or a file', load: () => (require('./commands/artifact') as typeof import('./commands/artifact')).artifactCommand() },
  { name: 'schedule', aliases: [], summary: 'start plans on a schedule: create, list, delete, trigger', load: () => (require('./commands/schedule') as typeof import('./commands/schedule')).scheduleCommand() },
  {
    name: 'delegate',
    aliases: [],
    summary: 'delegate a task to an A2A agent (starts a DelegatedTaskWorkflow) and print its workflow id',
    load: () => (require('./commands/delegate') as typeof import('./commands/delegate')).delegateCommand(),
  },
  {
    name: 'serve',
    aliases: [],
    summary: 'serve the HTTP API (/v1), the OpenAPI document and the push webhook on PLANNER_HOST:PLANNER_PORT',
    load: () => (require('./commands/serve') as typeof import('./commands/serve')).serveCommand(),
  },
  { name: 'worker', aliases: [], summary: "run the planner's workers only, against the Temporal server at TEMPORAL_ADDRESS", load: () => (require('./commands/worker') as typeof import('./commands/worker')).workerCommand() },
  {
    name: 'cluster',
    aliases: [],
    summary: 'a local production-shaped stack: Temporal on PostgreSQL, several workers and servers (up, down, status)',
    load: () => (require('./commands/cluster') as typeof import('./commands/cluster')).clusterCommand(),
  },
];
