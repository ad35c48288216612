// Alerts to the people a delegated task waits on (the one who answers, the operator who approves),
// sent beside the wait: an answer never waits for its question's alert to be delivered. Each alert's
// idempotency key names the execution chain, the kind, the round and the reminder, so a retried
// activity delivers it once; continue-as-new waits for the alerts in flight.
import { log } from '@temporalio/workflow';
import type { PlannerActivities } from '../../activities';
import type { DelegatedTask } from './input';

/** The kinds of activities/alert-operator.ts. */
export type AlertKind = Alert['kind'];
export type Alert = Parameters<PlannerActivities['alertOperator']>[0];

export class Alerts {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    /** Posts one alert (local-first.ts: a local attempt, then the activity). */
    private readonly post: (alert: Alert) => Promise<void>,
    private readonly input: DelegatedTask,
    private readonly workflowId: string,
    /** The execution chain (first run id): a reused workflow id alerts afresh. */
    private readonly chain: string,
  ) {}

  /** The alert of a round (question turn, approval round) and its nth reminder (0: the first alert). */
  of(kind: AlertKind, round: number, nth: number, taskId: string | undefined, text: string | undefined): Alert {
    return {
      kind,
      workflowId: this.workflowId,
      planId: this.input.planId,
      agent: this.input.agent.name,
      taskId: taskId ?? '',
      text: text ?? '',
      idempotencyKey: `${this.workflowId}:${this.chain}:${kind}:${round}:${nth}`,
    };
  }

  send(kind: AlertKind, round: number, nth: number, taskId: string | undefined, text: string | undefined): void {
    const sent = this.post(this.of(kind, round, nth, taskId, text)).catch((err: unknown) => {
      log.error('alert not delivered', { kind, round, error: String(err) });
    });
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  /** Some alert is still on its way. */
  get sending(): boolean {
    return this.inFlight.size > 0;
  }

  /** Settles once every alert sent so far was delivered or given up on. */
  settled(): Promise<void[]> {
    return Promise.all(this.inFlight);
  }
}
