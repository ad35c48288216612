// A plan step's report to its plan (what its task now waits on), sent by the step as a local
// activity in the workflow task that decided it: a question's and a terminal state's (the others
// stay signals; workflows/delegated-task/publish.ts says why). Signalled from the step's workflow, the
// report's acknowledgement lands in the step's history while a later workflow task runs, and the
// step may not close past an event it has not seen: the review of the seed plan took a third
// workflow task (~10 ms) between its answer's reply and its end, waiting for that event. A local
// activity leaves no such event: it has delivered the report before the workflow task that sent it
// completes. Run again after a lost workflow task, it repeats a report the plan already holds, and
// the plan keeps the latest by its `seq` (workflows/plan/state.ts). The first question's report is
// sent by the first send itself, beside its alert (activities/send-message.ts), with a bound.
import type { Client } from '@temporalio/client';
import { stepChangedSignal, type StepChanged } from '../workflows/plan/messages';

export interface StepReport {
  /** The plan's workflow id (the step's parent). */
  planWorkflowId: string;
  change: StepChanged;
}

export function createReportStep(temporal: Client) {
  return async function reportStep({ planWorkflowId, change }: StepReport, signal?: AbortSignal): Promise<void> {
    const send = () => temporal.workflow.getHandle(planWorkflowId).signal(stepChangedSignal, change);
    await (signal ? temporal.connection.withAbortSignal(signal, send) : send());
  };
}
