// The deadline policies of a wait (policies.input for a question, policies.auth for an approval):
// when a wait's deadline falls due, counted from the wait's start (kept across runs) and its
// reminders; what a missed deadline does (actOnDeadline: remind, fail, cancel; the failure is
// outcome.ts's); and how often a wait that holds no activity looks at the remote task.
import { condition } from '@temporalio/workflow';
import { hasPatch } from '../versions';
import { msToNumber } from '@temporalio/common/lib/time';
import type { Wait } from './carry';
import type { DeadlinePolicy, DelegatedTask, WatchPolicy } from './input';
import { deadlineExceeded, type DeadlineKind } from './outcome';
import type { AlertKind } from './alerts';

/** When the wait's deadline falls due, in ms from now (undefined: no deadline). */
export function untilDeadline(policy: DeadlinePolicy | undefined, wait: Wait): number | undefined {
  if (!policy) return undefined;
  const after = msToNumber(policy.after);
  const every = msToNumber(policy.remindEvery ?? policy.after);
  return Math.max(1, wait.since + after + wait.reminders * every - Date.now());
}

/** What a missed deadline does to the task it belongs to (Delegation). */
interface DeadlineHost {
  readonly input: DelegatedTask;
  readonly task: { taskId?: string; state?: string };
  alert(kind: AlertKind, round: number, nth: number): void;
  cancelRemote(): Promise<void>;
}

/** The wait's deadline fell due: remind (its next reminder), fail, or cancel the remote task and fail. */
export async function actOnDeadline(host: DeadlineHost, policy: DeadlinePolicy, kind: DeadlineKind, round: number, wait: Wait): Promise<void> {
  switch (policy.onDeadline) {
    case 'remind':
      wait.reminders++;
      host.alert(kind, round, wait.reminders);
      return;
    case 'fail':
      throw deadlineExceeded(policy, kind, host.input.agent.name, host.task.taskId);
    case 'cancel':
      await host.cancelRemote();
      throw deadlineExceeded(policy, kind, host.input.agent.name, host.task.taskId, { state: host.task.state });
  }
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
  const grown = halfTheAge(wait, watch.inputPollMax);
  return grown > base && hasPatch(INPUT_POLL_GROWS_PATCH) ? grown : base;
}

/**
 * The backstop GetTask of an approval round parked on push (the agent pushes every change, no
 * activity is held): `pushBackstop` at first, then half the round's age, up to `inputPollMax`, as
 * a question's poll grows. It only finds a push that was lost; a week costs ~20 polls.
 */
export function backstopPollMs(watch: WatchPolicy, wait: Wait): number {
  return Math.max(msToNumber(watch.pushBackstop), halfTheAge(wait, watch.inputPollMax));
}

/** Half the wait's age, at most `max` (none in a run begun before inputPollMax: 0): how a poll that only finds what was missed grows. */
function halfTheAge(wait: Wait, max: WatchPolicy['inputPollMax'] | undefined): number {
  return max === undefined ? 0 : Math.min(msToNumber(max), (Date.now() - wait.since) / 2);
}
