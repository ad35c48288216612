// How the face recognises an update the plan refused. The plan's validators throw an
// ApplicationFailure whose `type` is one of PlanUpdateRefusal (workflows/plan/messages.ts), and the
// client raises WorkflowUpdateFailedError with that failure as its cause. The face decides on the
// type alone: the failure's message is text for the caller, never something to parse.
import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import type { PlanUpdateRefusal } from '../../workflows/plan/messages';

type Refusal = (typeof PlanUpdateRefusal)[keyof typeof PlanUpdateRefusal];

/** The update failed because the plan refused it for this reason; `err.cause.message` says why, for the caller. */
export function refusedAs(err: unknown, refusal: Refusal): err is WorkflowUpdateFailedError & { cause: ApplicationFailure } {
  return err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === refusal;
}
