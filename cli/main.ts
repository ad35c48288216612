// The `planner` command line (bin/planner.js). One file per command in commands/; this file builds
// the program, registers them, and turns whatever goes wrong into one line and an exit code:
// 0 done, 1 failed at run time, 2 bad command line or environment (nothing was sent).
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { answerCommand } from './commands/answer';
import { artifactCommand } from './commands/artifact';
import { artifactsCommand } from './commands/artifacts';
import { clusterCommand } from './commands/cluster';
import { demoCommand } from './commands/demo';
import { planCommand } from './commands/plan';
import { runCommand } from './commands/run';
import { scheduleCommand } from './commands/schedule';
import { serveCommand } from './commands/serve';
import { cancelCommand } from './commands/cancel';
import { delegateCommand } from './commands/delegate';
import { devCommand } from './commands/dev';
import { inboxCommand } from './commands/inbox';
import { statusCommand } from './commands/status';
import { workerCommand } from './commands/worker';
import { CommandLineError, EXIT_OK, EXIT_USAGE, reportError, UsageError } from './errors';
import { CONNECTION_HELP, EXIT_CODES_HELP } from './help';
import { err } from './output';

/** The commands, in the order help lists them. A new command is one file in commands/ and one line here. */
const COMMANDS: Array<() => CommandUnknownOpts> = [
  devCommand,
  demoCommand,
  runCommand,
  planCommand,
  inboxCommand,
  statusCommand,
  answerCommand,
  cancelCommand,
  artifactsCommand,
  artifactCommand,
  scheduleCommand,
  delegateCommand,
  serveCommand,
  workerCommand,
  clusterCommand,
];

export function buildProgram(): Command {
  const program = new Command('planner')
    .description('a durable planner on Temporal that delegates tasks to remote A2A agents')
    .usage('<command> [options]')
    .addHelpText('after', `${EXIT_CODES_HELP}\n${CONNECTION_HELP}\n\nRun \`planner <command> --help\` for a command's options and examples.`);
  for (const command of COMMANDS) program.addCommand(command());
  return program;
}

/**
 * Commander prints its own errors and calls process.exit; the planner wants one line in its own
 * words and an exit code it chooses. Every command therefore throws instead (exitOverride) and
 * prints nothing itself (outputError); reportError (errors.ts) says what went wrong.
 */
function throwInsteadOfExiting(command: CommandUnknownOpts): void {
  command.exitOverride((e) => {
    throw new CommandLineError(command, e);
  });
  command.configureOutput({ outputError: () => undefined });
  command.commands.forEach(throwInsteadOfExiting);
}

/** `--text ''` is a mistake, not a message: refuse empty values before any action runs. */
function refuseEmptyValues(program: CommandUnknownOpts): void {
  program.hook('preAction', (_, action) => {
    for (const option of action.options) {
      if (action.getOptionValue(option.attributeName()) === '') throw new UsageError(`${option.long ?? option.short} needs a value`);
    }
  });
}

/** Runs one command line; resolves to the exit code. Expected failures print one line, never a stack. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  throwInsteadOfExiting(program);
  refuseEmptyValues(program);
  // Errors are charged to the command being parsed or run: commander announces each subcommand.
  let running: CommandUnknownOpts = program;
  const follow = (command: CommandUnknownOpts): void => {
    command.hook('preSubcommand', (_, sub) => {
      running = sub;
    });
    command.commands.forEach(follow);
  };
  follow(program);
  // `planner help NAME` for a NAME that is no command: commander would print the whole help as an error.
  if (argv[0] === 'help' && argv[1] !== undefined && !program.commands.some((c) => c.name() === argv[1] || c.aliases().includes(argv[1]!))) {
    err(`planner help: unknown command ${JSON.stringify(argv[1])} (commands: ${program.commands.map((c) => c.name()).join(', ')})`);
    return EXIT_USAGE;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (e) {
    return reportError(running, e);
  }
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
