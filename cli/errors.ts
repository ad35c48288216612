// What can go wrong on the command line, and the exit code each maps to: 0 done; 1 a failure at run
// time (Temporal, the agent, a rejected answer, an unknown workflow id); 2 the command line or the
// environment is wrong and nothing was sent; 3 an answer is recorded but not sent yet (no worker polls
// the queue). Every failure is one line on stderr, never a stack.
import { CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { DelegatedTaskNotFoundError, InvalidInputError } from '../client/errors';
import { err } from './output';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_NOT_SENT = 3;

/** The answer is in the workflow's history, but no worker runs to send it: exit 3 with this message. */
export class AnswerNotSentYet extends Error {
  override readonly name = 'AnswerNotSentYet';
}

/** The command line is wrong: exit 2, nothing was sent. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An expected failure at run time: exit 1 with this message and no stack. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}

/**
 * A commander parse error (unknown flag, missing argument, ...) or help/version output, with the
 * command that raised it. Thrown by the exitOverride that main.ts installs on every command.
 */
export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
  constructor(
    readonly command: CommandUnknownOpts,
    readonly commander: CommanderError,
  ) {
    super(commander.message);
  }
}

/** "planner", "planner delegate", "planner plan check": how errors and hints name a command. */
export function commandPath(command: CommandUnknownOpts): string {
  const names: string[] = [];
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Prints what went wrong (one line) and returns the exit code. `command` is the one that was running. */
export function reportError(command: CommandUnknownOpts, e: unknown): number {
  const path = commandPath(command);
  const hint = command.parent ? ` (see ${path} --help)` : ' (see planner --help)';
  if (e instanceof CommandLineError) {
    const code = e.commander.code;
    // Help and version were printed already; help shown for a missing command (exit code 1 to
    // commander) is a usage error.
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return EXIT_OK;
    if (code === 'commander.help') return e.commander.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    err(`${commandPath(e.command)}: ${usageMessage(e.command, e.commander)}${e.command.parent ? ` (see ${commandPath(e.command)} --help)` : ''}`);
    return EXIT_USAGE;
  }
  if (e instanceof UsageError || e instanceof InvalidInputError) {
    err(`${path}: ${e.message}${hint}`);
    return EXIT_USAGE;
  }
  if (e instanceof AnswerNotSentYet) {
    err(`${path}: ${e.message}`);
    return EXIT_NOT_SENT;
  }
  const message = e instanceof Error ? e.message : String(e);
  const expected = e instanceof CliFailure || e instanceof DelegatedTaskNotFoundError;
  const debug = Boolean(process.env.PLANNER_CLI_DEBUG);
  // One line: an unexpected error's further lines (a build log, a stack in the message) on request.
  const [first = '', ...more] = message.split('\n');
  err(`${path}: ${first}${more.length && !debug ? ' (PLANNER_CLI_DEBUG=1 shows the rest)' : ''}`);
  if (debug && more.length) err(more.join('\n'));
  if (debug && e instanceof Error && !expected) err(e.stack ?? '');
  return EXIT_FAILED;
}

/** Commander's own messages ("error: unknown option '--colour'"), reshaped into the planner's words. */
export function usageMessage(command: CommandUnknownOpts, e: CommanderError): string {
  const quoted = /'([^']*)'/.exec(e.message)?.[1] ?? '';
  const flag = quoted.split(/[ ,]/).find((f) => f.startsWith('--')) ?? quoted.split(/[ ,]/)[0] ?? quoted;
  const suggestion = /\(Did you mean (\S+)\?\)/.exec(e.message)?.[1];
  const didYouMean = suggestion ? ` (did you mean ${suggestion}?)` : '';
  switch (e.code) {
    case 'commander.unknownCommand': {
      const names = [...command.commands.map((c) => c.name()), 'help'].join(', ');
      return `unknown command ${JSON.stringify(quoted)}${suggestion ? `: did you mean ${suggestion}?` : ''} (commands: ${names})`;
    }
    case 'commander.unknownOption': {
      // An argument such as "-1" or "-x" is read as a flag: say how to pass it.
      const dash = command.registeredArguments.length > 0 && !suggestion ? ' (for an argument that starts with "-", put it after --)' : '';
      return `unknown flag ${quoted}${didYouMean}${dash}`;
    }
    case 'commander.missingMandatoryOptionValue':
      return `missing ${flag}`;
    case 'commander.optionMissingArgument':
      return `${flag} needs a value`;
    case 'commander.missingArgument':
      return `missing ${quoted}`;
    case 'commander.excessArguments': {
      const extra = command.args[command.registeredArguments.length];
      const last = command.registeredArguments[command.registeredArguments.length - 1]?.name();
      const hint = last === 'TEXT' ? ' (quote text that has spaces)' : '';
      return `unexpected argument ${JSON.stringify(extra ?? '')}${hint}`;
    }
    case 'commander.conflictingOption': {
      const flags = [...e.message.matchAll(/'(--[\w-]+)/g)].map((m) => m[1]);
      return `give ${flags.join(' or ')}, not both`;
    }
    case 'commander.invalidArgument': {
      const reason = e.message.replace(/^error: .*? is invalid\.\s*/, '');
      return `bad ${flag || 'value'}: ${reason}`;
    }
    default:
      return (e.message.split('\n')[0] ?? e.message).replace(/^error: /, '');
  }
}
