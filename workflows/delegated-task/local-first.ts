// The first message, an answer and an alert each try once as a local activity, inside the
// workflow task that decided them; the activity (calls.ts) takes over whenever that attempt cannot
// finish the job. A local attempt costs one marker instead of an activity's three events and the
// workflow task that follows its result, and no dispatch: an instant task is 9 events instead of
// 14, a question 19 instead of 34.
//
// What a local attempt loses is the record that it ran: a worker that dies inside it leaves only a
// timed-out workflow task, and the next worker runs the same code again. So a local attempt never
// risks a second delivery:
// - the first message goes local only in the run's first workflow task (history length 3); any
//   later try is the activity, told that a local attempt may have reached the agent, so it
//   reconciles first, as its own retries do (activities/send-message.ts);
// - an answer sent locally always looks first (GetTask: our messageId in the task's history); to
//   an agent that shows no history it is the activity's;
// - an alert carries its idempotency key either way, so a repeat is recognised by its receiver.
// A local attempt holds the workflow task open, so it is bounded (`LOCAL_HOLD_MS`): a send whose
// task is still working by then returns it as it stands and the workflow watches it; an answer
// the agent still works on is aborted and looked up by the activity; a blocking first send (an
// agent that does not stream) is the activity's from the start.
import { RetryState } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, isCancellation, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { PlannerActivities } from '../../activities';
import type { Alert } from './alerts';
import type { Calls } from './calls';

/** Since this patch (in place of delegated-task-v2's) sends and alerts try a local attempt first. */
export const LOCAL_FIRST_PATCH = 'local-first-attempts';

/** How long a local send holds the stream before it hands the task to a watch. */
export const LOCAL_HOLD_MS = 3_000;
/** Within the workflow task's timeout (10 s; Core extends the task past 8 s, which costs events). */
const LOCAL_TIMEOUT_MS = 6_000;

type SendInput = Parameters<PlannerActivities['sendMessage']>[0];
type SendOutcome = Awaited<ReturnType<PlannerActivities['sendMessage']>>;

export class LocalFirst {
  private readonly local = proxyLocalActivities<PlannerActivities>({ startToCloseTimeout: LOCAL_TIMEOUT_MS, retry: { maximumAttempts: 1 } });

  constructor(
    /** The run began under LOCAL_FIRST_PATCH; runs from before it call the activities only. */
    readonly on: boolean,
    private readonly sender: Calls,
    private readonly calls: Calls,
  ) {}

  /** The first message: local only in the run's first workflow task, where no earlier local attempt can have run. */
  sendFirst(input: SendInput): Promise<SendOutcome> {
    if (!this.on) return this.sender.sendMessage(input);
    if (workflowInfo().historyLength !== 3) return this.sender.sendMessage({ ...input, mayHaveSent: true });
    return this.send(input);
  }

  /** An answer on the task: the local attempt looks before it sends, so it may run again. */
  sendAnswer(input: SendInput): Promise<SendOutcome> {
    return this.on ? this.send(input) : this.sender.sendMessage(input);
  }

  /** An alert: a failed local post is the activity's to retry, under the same idempotency key. */
  async alert(alert: Alert): Promise<void> {
    if (!this.on) return this.calls.alertOperator(alert);
    try {
      return await this.local.alertOperator(alert);
    } catch (err) {
      if (isCancellation(err)) throw err;
      return this.calls.alertOperator(alert);
    }
  }

  private async send(input: SendInput): Promise<SendOutcome> {
    try {
      const out = await this.local.sendMessage({ ...input, holdMs: LOCAL_HOLD_MS });
      // Handed over: the agent named its task, then the call failed; the activity looks it up.
      if (out.handOver) return await this.sender.sendMessage({ ...input, mayHaveSent: true, known: out.handOver });
      // Deferred: nothing went on the wire, now or from an earlier local attempt (an answer to an
      // agent that shows no history is never sent locally): the activity's first attempt sends.
      if (!out.deferred) return out;
      return await this.sender.sendMessage(input);
    } catch (err) {
      if (isCancellation(err)) throw err;
      // A failure no retry changes ends the send as the activity's would (and reads the same: Core
      // hands a local failure over bare); the others are the activity's to retry.
      if (finalFailure(err)) throw err instanceof ActivityFailure ? err : new ActivityFailure('Activity task failed', 'sendMessage', undefined, RetryState.NON_RETRYABLE_FAILURE, undefined, err as Error);
      return this.sender.sendMessage({ ...input, mayHaveSent: true });
    }
  }
}

/** A failure the activity would not retry either (Core may hand a local failure over bare or wrapped). */
function finalFailure(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.nonRetryable === true;
}
