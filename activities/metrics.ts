// The planner's own metrics from its activities, on the worker's Prometheus endpoint
// (PLANNER_METRICS_ADDRESS): through the activity's metric meter, so they leave by the same
// exporter as the SDK's metrics and carry its tags (namespace, task_queue, activity_type) with no
// second registry. Outside an activity (a unit call) there is no meter, and nothing is counted.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure, type MetricMeter } from '@temporalio/common';

export const A2A_CALLS = 'planner_a2a_calls';
export const ALERTS_SENT = 'planner_alerts_sent';
export const ALERTS_FAILED = 'planner_alerts_failed';

function meter(): MetricMeter | undefined {
  try {
    return Context.current().metricMeter;
  } catch {
    return undefined;
  }
}

/** What a failed call ended in: the failure type (AgentUnreachable, TaskNotFound...), bounded by the planner's own types. */
function outcomeOf(err: unknown): string {
  if (err instanceof CancelledFailure) return 'cancelled';
  if (err instanceof ApplicationFailure) return err.type ?? 'ApplicationFailure';
  return err instanceof Error ? err.name : 'error';
}

/**
 * An A2A activity counted by agent, A2A method and outcome (`ok` or the failure type) as it ends.
 * `resultOutcome` reads a result that is not a plain success: an outcome of its own, or null for
 * an attempt that made no call (a local send that left the send to its activity).
 */
export function countA2aCall<I extends { agent: { name: string } }, O>(method: string, fn: (input: I) => Promise<O>, resultOutcome: (result: O) => string | null = () => 'ok'): (input: I) => Promise<O> {
  return async (input: I) => {
    let outcome: string | null = 'ok';
    try {
      const result = await fn(input);
      outcome = resultOutcome(result);
      return result;
    } catch (err) {
      outcome = outcomeOf(err);
      throw err;
    } finally {
      if (outcome !== null) meter()?.createCounter(A2A_CALLS, undefined, 'A2A calls to agents, by agent, method and outcome').add(1, { agent: input.agent.name, method, outcome });
    }
  };
}

/** One alert through one sink: sent, or failed (the activity retries it). */
export function countAlert(kind: string, sink: string, sent: boolean): void {
  const name = sent ? ALERTS_SENT : ALERTS_FAILED;
  meter()?.createCounter(name, undefined, sent ? 'alerts delivered, by kind and sink' : 'alerts a sink failed to take, by kind and sink').add(1, { kind, sink });
}
