// How a delegated task ended, in the words the CLI prints: one sentence for a run that closed
// ("failed: <innermost cause>", "was cancelled", ...).
import { CancelledFailure, TerminatedFailure, TimeoutFailure, type Client, type WorkflowFailedError } from '@temporalio/client';
import { describeTask } from '../client/delegated-task';

/** The Temporal status a closed run's WorkflowFailedError stands for. */
export function executionStatusOf(e: WorkflowFailedError): string {
  if (e.cause instanceof CancelledFailure) return 'CANCELLED';
  if (e.cause instanceof TerminatedFailure) return 'TERMINATED';
  if (e.cause instanceof TimeoutFailure) return 'TIMED_OUT';
  return 'FAILED';
}

/**
 * How a closed run ended, for a sentence: "failed: <innermost cause>", "was cancelled", "completed", ...
 * `when` goes between the how and the why ("failed before the answer went through: ...").
 */
export function endedHow(status: string, failure: string | undefined, when = '', already = ''): string {
  switch (status) {
    case 'FAILED':
      return `${already}failed${when}: ${failure ?? 'no reason recorded'}`;
    case 'TERMINATED':
      return `was ${already}terminated${when}${failure ? `: ${failure.replace(/^TerminatedFailure: /, '')}` : ''}`;
    case 'CANCELLED':
      return `was ${already}cancelled${when}`;
    case 'TIMED_OUT':
      return `${already}timed out${when}`;
    default:
      return `${already}${status.toLowerCase().replace(/_/g, ' ')}${when}`;
  }
}

/** endedHow for the task as Temporal has it now. */
export async function endedText(client: Client, workflowId: string, when = '', already = ''): Promise<string> {
  const s = await describeTask(client, workflowId);
  return endedHow(s.workflowStatus, s.failure, when, already);
}
