// The `planner` command line (bin/planner.js). One file per command in commands/; this file builds
// the program, registers them, and turns whatever goes wrong into one line and an exit code:
// 0 done, 1 failed at run time, 2 bad command line or environment (nothing was sent).
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { COMMANDS, type CommandEntry } from './command-list';
import { CommandLineError, EXIT_OK, EXIT_USAGE, reportError, UsageError } from './errors';
import { CONNECTION_HELP, EXIT_CODES_HELP } from './help';
import { err } from './output';

/** The command an argument list runs (`planner help NAME` too), or undefined (top-level help, an unknown name). */
function commandOf(argv: readonly string[]): CommandEntry | undefined {
  const at = argv.findIndex((a) => !a.startsWith('-'));
  const name = argv[at] === 'help' ? argv[at + 1] : argv[at];
  return COMMANDS.find((c) => c.name === name || c.aliases.includes(name ?? ''));
}

/** What help lists for a command that is not loaded: its name, aliases and summary. */
function listed(entry: CommandEntry): CommandUnknownOpts {
  return new Command(entry.name).aliases(entry.aliases).description(entry.summary);
}

/**
 * The program. Given the argument list, only the command it runs is loaded; the others are listed
 * for help and for "unknown command" messages. Without it, every command is loaded (tests read them).
 */
export function buildProgram(argv?: readonly string[]): Command {
  const running = argv === undefined ? undefined : commandOf(argv);
  const program = new Command('planner')
    .description('a durable planner on Temporal that delegates tasks to remote A2A agents')
    .usage('<command> [options]')
    // One line per command, as when every command's arguments widened the first column so far that
    // commander did not wrap: a line reads whole in a terminal and in `planner --help | grep`.
    .configureHelp({ helpWidth: Number.MAX_SAFE_INTEGER })
    .addHelpText('after', `${EXIT_CODES_HELP}\n${CONNECTION_HELP}\n\nRun \`planner <command> --help\` for a command's options and examples.`);
  for (const entry of COMMANDS) program.addCommand(argv === undefined || entry === running ? entry.load() : listed(entry));
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
  const program = buildProgram(argv);
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
  // `planner inbox | head`: the reader went away, which is no error of the command's.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
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
