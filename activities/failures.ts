// The one place where an A2A error becomes a Temporal activity failure: its class name is the
// failure type, and the error itself decides whether a retry can help.
import { ApplicationFailure } from '@temporalio/common';
import { A2AError } from '../a2a';

export function toActivityFailure(err: unknown): unknown {
  if (err instanceof A2AError) {
    return ApplicationFailure.create({
      type: err.name,
      message: err.message,
      nonRetryable: !err.retryable,
      // Retry-After: 0 means "now"; a zero nextRetryDelay would make the server stop retrying
      // altogether, so it falls back to the retry policy's backoff instead.
      nextRetryDelay: err.retryAfterMs ? err.retryAfterMs : undefined,
    });
  }
  return err;
}

/** Runs an activity body, turning A2A errors into typed failures. */
export async function withTypedFailures<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (err) {
    throw toActivityFailure(err);
  }
}

/** The agent says it does not know the task (GetTask, or an answer sent on it): nothing will ever change it again. */
export function remoteTaskLost(agent: string, taskId: string, err: Error): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'RemoteTaskLost',
    nonRetryable: true,
    message: `agent ${agent} no longer knows task ${taskId} (${err.message}); it may have restarted without its tasks`,
  });
}

/** A call that timed out in the given phase (`idle`: a stream that sent nothing for its idle timeout). */
export function isTimeout(err: unknown, phase: string): boolean {
  return err instanceof A2AError && err.name === 'TimeoutError' && (err as { phase?: string }).phase === phase;
}
