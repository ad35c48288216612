// The first message that the agent does not answer: the connection may be accepted and no reply
// ever come. The send activity would wait out its timeout and its retries in silence, so it tells a
// person itself once the message has gone unanswered for `afterMs` (the watch policy's
// unreachableAfter), counted from the send's first attempt. No workflow timer: no history event.
import type { Context } from '@temporalio/activity';
import { log } from '@temporalio/activity';
import type { Alert } from './alert-operator';

export interface UnansweredAlert {
  afterMs: number;
  /** The alert to post: its idempotency key is the send's, so every attempt posts the same alert. */
  alert: Alert;
}

/** Arms the alert for this attempt; returns its disarm. `answered`: the agent has named its task. */
export function armUnansweredAlert(ctx: Context, spec: UnansweredAlert | undefined, answered: () => boolean, post: (alert: Alert) => Promise<void>): () => void {
  if (!spec) return () => undefined;
  const since = ctx.info.scheduledTimestampMs;
  const timer = setTimeout(() => {
    if (answered() || ctx.cancellationSignal.aborted) return;
    const text = `${spec.alert.text} (no reply since ${new Date(since).toISOString()}, attempt ${ctx.info.attempt}; the planner keeps waiting)`;
    post({ ...spec.alert, text }).catch((err: unknown) => log.warn('unanswered-message alert not delivered', { error: String(err) }));
  }, Math.max(0, since + spec.afterMs - Date.now()));
  return () => clearTimeout(timer);
}
