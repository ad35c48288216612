// The deadline policies of a wait (policies.input for a question, policies.auth for an approval):
// when a wait's deadline falls due, counted from the wait's start (kept across runs) and its
// reminders. What a missed deadline does is the wait's (onDeadline); its failure is in outcome.ts.
import { condition, patched } from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import type { Wait } from './carry';
import type { DeadlinePolicy, WatchPolicy } from './input';

/** When the wait's deadline falls due, in ms from now (undefined: no deadline). */
export function untilDeadline(policy: DeadlinePolicy | undefined, wait: Wait): number | undefined {
  if (!policy) return undefined;
  const after = msToNumber(policy.after);
  const every = msToNumber(policy.remindEvery ?? policy.after);
  return Math.max(1, wait.since + after + wait.reminders * every - Date.now());
}

/** The nearer of two deadlines (undefined: none). */
export function nearer(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** condition() with an optional timeout; true when `fn` came true. */
export async function waitFor(fn: () => boolean, timeoutMs: number | undefined): Promise<boolean> {
  if (timeoutMs === undefined) {
    await condition(fn);
    return true;
  }
  return condition(fn, timeoutMs);
}

/** Since this patch a question's poll interval grows with its age; asked only once it would differ. */
export const INPUT_POLL_GROWS_PATCH = 'input-poll-grows';

/**
 * The interval of a question's GetTask poll: `inputPoll` at first, then half the question's age, up
 * to `inputPollMax` (a run begun before inputPollMax existed has none: it keeps `inputPoll`). The
 * poll only notices a task that ended at the agent while a person thinks; an old question's end can
 * wait longer to be noticed, and a week costs ~20 polls instead of 1,008.
 */
export function inputPollMs(watch: WatchPolicy, wait: Wait): number {
  const base = msToNumber(watch.inputPoll);
  if (watch.inputPollMax === undefined) return base;
  const grown = Math.min(msToNumber(watch.inputPollMax), (Date.now() - wait.since) / 2);
  return grown > base && patched(INPUT_POLL_GROWS_PATCH) ? grown : base;
}
