// Parsers for flag values, for commander's .option(..., parser) and for checks in actions. A bad
// value throws a UsageError naming the flag and what it should look like (exit 2, nothing sent).
import { readFileSync } from 'node:fs';
import { DurationSchema } from '../workflows/delegated-task/input';
import { planIdProblem } from '../client/plan';
import { UsageError } from './errors';

export function parseJson(what: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UsageError(`bad JSON in ${what}: ${(e as Error).message}`);
  }
}

/** --data JSON */
export const jsonData = (value: string): unknown => parseJson('--data', value);

/** --turn N: a question turn, as the inbox shows it. */
export function questionTurn(value: string): number {
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new UsageError(`bad --turn ${JSON.stringify(value)}: a question turn, a whole number from 1`);
  return Number(value);
}

/** --plan ID: usable in the inbox's visibility query. */
export function planId(value: string): string {
  const why = planIdProblem(value);
  if (why) throw new UsageError(`bad --plan ${JSON.stringify(value)}: ${why}`);
  return value;
}

/** A duration flag such as --input-deadline: 90s, 30m, 72h, 2d. */
export const duration =
  (flag: string) =>
  (value: string): string => {
    if (!DurationSchema.safeParse(value).success) throw new UsageError(`bad ${flag} ${JSON.stringify(value)}: a duration such as 90s, 30m, 72h or 2d`);
    return value;
  };

export const DEADLINE_POLICIES = ['remind', 'fail', 'cancel'] as const;
export type DeadlinePolicy = (typeof DEADLINE_POLICIES)[number];

/** --on-input-deadline / --on-auth-deadline: remind, fail or cancel. */
export const deadlinePolicy =
  (flag: string) =>
  (value: string): DeadlinePolicy => {
    if (!(DEADLINE_POLICIES as readonly string[]).includes(value)) throw new UsageError(`bad ${flag} ${JSON.stringify(value)}: remind, fail or cancel`);
    return value as DeadlinePolicy;
  };

/** A JSON file named by a flag (e.g. --card FILE), read and parsed; errors name the flag and the file. */
export function readJsonFile(flag: string, file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory' : (e as Error).message;
    throw new UsageError(`cannot read ${flag} ${file}: ${why}`);
  }
  return parseJson(`${flag} ${file}`, text);
}

/** A repeatable NAME=VALUE flag (--input, --agent-url), collected into a record; the first "=" splits. */
export const keyValue =
  (flag: string) =>
  (value: string, previous: Record<string, string> = {}): Record<string, string> => {
    const i = value.indexOf('=');
    if (i <= 0) throw new UsageError(`bad ${flag} ${JSON.stringify(value)}: NAME=VALUE`);
    const name = value.slice(0, i);
    if (name in previous) throw new UsageError(`${flag} ${name} is given twice`);
    return { ...previous, [name]: value.slice(i + 1) };
  };
