// DelegatedTaskWorkflow: one remote A2A task, tracked from the first message to a terminal state,
// through questions (INPUT_REQUIRED) and out-of-band approvals (AUTH_REQUIRED), for as long as it
// takes: the run continues as new before its history grows large, carrying what it knows.
// This file is the table of contents: the v1 gate, the handlers (one line each onto the state,
// delegation.ts), the main loop over the remote state, continue-as-new and the end of the run.
import { ApplicationFailure, CancellationScope, allHandlersFinished, condition, continueAsNew, isCancellation, log, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { hasPatch } from '../versions';
import type { DelegatedTask, DelegatedTaskInput, DelegatedTaskResult } from './input';
import { checkDelegatedTaskInput } from './check';
import { answerSignal, answerUpdate, observeSignal, resolveSendUpdate, statusQuery } from './messages';
import { rewatchSignal } from '../watch-hub/messages';
import type { DelegatedTaskCarry } from './carry';
import { Delegation } from './delegation';
import { LOCAL_FIRST_PATCH } from './local-first';
import { taskOutcome, withTypedCause } from './outcome';
import { legacyDelegatedTask } from './v1/delegated-task';

export type { DelegatedTaskCarry } from './carry';
export { KEEP_WATCH_PATCH } from './delegation';

/** Histories begun before this marker run the frozen v1 code (workflows/delegated-task/v1/). */
export const V2_PATCH = 'delegated-task-v2';
/**
 * A run that fails or is cancelled first waits for the alerts in flight: closing while one's result
 * arrived failed that workflow task (UnhandledCommand), e.g. a deadline due as its question's alert went.
 */
export const END_AFTER_ALERTS_PATCH = 'end-after-alerts';
/** Since this patch a run lets its reports to the plan land before it closes (see the end of the run). */
export const REPORTS_LAND_PATCH = 'reports-land-before-end';
/** At most one alert call's timeout: an alert sink that is down does not hold up the end for its retries. */
const ALERTS_AT_END_MS = 30_000;

export async function DelegatedTaskWorkflow(raw: DelegatedTaskInput, carry?: DelegatedTaskCarry): Promise<DelegatedTaskResult> {
  // Runs begun on the first release keep its code, so their histories replay unchanged. Since
  // LOCAL_FIRST_PATCH a run records that marker instead of the v2 one (each costs two events), and
  // since CURRENT_PATCH that one instead (../versions.ts).
  const localFirst = hasPatch(LOCAL_FIRST_PATCH);
  if (!localFirst && !patched(V2_PATCH)) return legacyDelegatedTask(raw);
  const input = parseInput(raw);
  const delegation = new Delegation(input, carry, localFirst);
  // Before the first await: an update in the first activation must find its handler.
  setHandler(statusQuery, () => delegation.status());
  setHandler(observeSignal, (observation) => delegation.observe(observation), { description: 'An observation of the remote task (watch, push receiver).' });
  setHandler(rewatchSignal, ({ watchId }) => delegation.rewatch(watchId), { description: 'The worker holding this parked wait is gone: lease a watch again.' });
  setHandler(answerUpdate, (answer) => delegation.deliverAnswer(answer), {
    validator: (answer) => delegation.validateAnswer(answer),
    description: 'Answer the question the agent asked (INPUT_REQUIRED); returns the agent state after it.',
  });
  setHandler(answerSignal, (answer) => delegation.takeSignalledAnswer(answer), { description: 'Answer the current question (fire-and-forget; for the Temporal UI). Prefer the update.' });
  setHandler(resolveSendUpdate, (resolution) => delegation.resolveSend(resolution), {
    validator: (resolution) => delegation.validateResolution(resolution),
    description: 'Settle a first message whose reply was lost: resend it, or adopt the task the agent made of it.',
  });

  let continuing = false;
  try {
    if (!carry) {
      const reply = await delegation.sendFirst();
      if (reply) return reply;
    }
    while (!delegation.task.terminal) {
      if (delegation.historyFull() && !delegation.pendingAnswer) {
        continuing = true;
        if (await delegation.readyToContinueAsNew()) {
          log.info('continuing as new', { historyLength: workflowInfo().historyLength, runs: delegation.runs + 1 });
          return await continueAsNew<typeof DelegatedTaskWorkflow>(input, delegation.carry());
        }
        continuing = false; // an answer arrived meanwhile: send it first
      }
      if (delegation.task.state === 'TASK_STATE_INPUT_REQUIRED') await delegation.answerQuestion();
      else if (delegation.task.state === 'TASK_STATE_AUTH_REQUIRED') await delegation.awaitApproval();
      else await delegation.awaitProgress();
      delegation.publish();
    }
    // A report signalled to the plan (an approval's; any, before LOCAL_REPORTS_PATCH) still on its
    // way lands as an event while this task closes the run, and the server refuses that close
    // (UnhandledCommand), failing an answer's update taken in the same task: a bot answers within
    // ms of the alert. Let every report land first (asked only then).
    if (delegation.publisher.earlierReports() && hasPatch(REPORTS_LAND_PATCH)) {
      for (let landing = delegation.publisher.allReports(); landing; landing = delegation.publisher.allReports()) await landing;
    }
    delegation.publish();
    // A local report (a failed step's last word) reaches the plan within this workflow task, before the run closes.
    const reporting = delegation.publisher.localReports();
    if (reporting) await reporting;
    if (delegation.task.state === 'TASK_STATE_CANCELED') {
      // Cancelled at the agent by someone else: this run ends cancelled too, through the catch below.
      await delegation.cancelThisRun();
      await condition(() => false);
    }
    const result = taskOutcome(input.agent.name, delegation.task);
    await condition(allHandlersFinished); // an answer being sent gets its reply before the run ends
    return result;
  } catch (err) {
    if (isCancellation(err)) {
      await delegation.cancelRemote();
      log.info('workflow cancelled; remote task cancelled', { taskId: delegation.task.taskId, state: delegation.task.state });
    }
    if (!continuing) {
      // Every update gets its answer (a reply or the reason) before the run closes.
      delegation.close(isCancellation(err) ? 'cancelled' : 'failed');
      const reporting = delegation.publisher.localReports();
      if (reporting) await reporting;
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
      if (delegation.alerts.sending && hasPatch(END_AFTER_ALERTS_PATCH)) await CancellationScope.nonCancellable(() => condition(() => !delegation.alerts.sending, ALERTS_AT_END_MS));
    }
    throw withTypedCause(err, input.agent.name, delegation.task.taskId);
  } finally {
    if (!continuing) await delegation.release();
  }
}

function parseInput(raw: DelegatedTaskInput): DelegatedTask {
  const checked = checkDelegatedTaskInput(raw);
  if (!checked.ok) {
    throw ApplicationFailure.create({
      type: 'InvalidInput',
      nonRetryable: true,
      message: `invalid DelegatedTaskWorkflow input: ${checked.problem}`,
    });
  }
  return checked.task;
}
