// Tells a person that a task waits on them. Sinks come from configuration: `log` (pino) and
// `webhook` (POST JSON with an Idempotency-Key, so a retried alert is recognisable downstream).
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { outboundPolicy } from '../a2a/outbound-policy';
import { countAlert } from './metrics';
import { postWebhook } from './post-webhook';

export interface Alert {
  /**
   * input: a question; auth: an approval; working: a task past its working deadline; unreachable: a
   * wait nobody can watch; unresolved: a send whose fate is unknown; unanswered: a first message the
   * agent has not answered; total: a task past its whole-task deadline.
   */
  kind: 'input' | 'auth' | 'working' | 'unreachable' | 'unresolved' | 'unanswered' | 'total';
  workflowId: string;
  planId?: string;
  agent: string;
  taskId: string;
  /** The agent's own words: the question, or the approval request with its URL. */
  text: string;
  idempotencyKey: string;
}

/** An alert the workflow built ahead (the send's, the watch's), with the task and the agent's own words as they came; its key unchanged. */
export function inTheAgentsWords(alert: Alert & { round?: number }, taskId: string, text: string | undefined): Alert {
  const { round: _round, ...rest } = alert;
  return { ...rest, taskId, text: text ?? rest.text };
}

export interface AlertConfig {
  sinks: Array<'log' | 'webhook'>;
  webhookUrl?: string;
  /** Temporal UI base, e.g. http://127.0.0.1:8233, for a link to the workflow. */
  uiUrl?: string;
  namespace: string;
}

const LOG_LINES: Record<Alert['kind'], string> = {
  input: 'an agent asks a question',
  auth: 'an agent waits for an approval',
  working: 'an agent has been working past its deadline',
  unreachable: 'a waiting task cannot be watched',
  unresolved: 'the fate of a first message is unknown: resend or adopt',
  unanswered: 'an agent has not answered the first message',
  total: 'a task has run past its whole-task deadline',
};

export function createAlertOperator(config: AlertConfig, logger: Logger) {
  // The agents' address policy applies to the webhook too, checked again on every connect.
  let dispatcher: Dispatcher | undefined;
  const webhookDispatcher = (): Dispatcher => (dispatcher ??= outboundPolicy().dispatcher());
  // `signal` bounds a webhook post from outside: a caller that cannot wait long (the first send) aborts it.
  return async function alertOperator(alert: Alert, signal?: AbortSignal): Promise<void> {
    const uiUrl = config.uiUrl
      ? `${config.uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(config.namespace)}/workflows/${encodeURIComponent(alert.workflowId)}`
      : undefined;
    const body = {
      kind: alert.kind,
      workflowId: alert.workflowId,
      planId: alert.planId,
      agent: alert.agent,
      taskId: alert.taskId,
      text: alert.text,
      uiUrl,
    };
    for (const sink of config.sinks) {
      if (sink === 'log') {
        logger.warn({ alert: body }, LOG_LINES[alert.kind]);
      } else {
        try {
          await postAlert(config.webhookUrl, body, alert.idempotencyKey, webhookDispatcher(), signal);
        } catch (err) {
          countAlert(alert.kind, sink, false);
          throw err;
        }
      }
      countAlert(alert.kind, sink, true);
    }
  };
}

async function postAlert(url: string | undefined, body: object, idempotencyKey: string, dispatcher: Dispatcher, signal: AbortSignal | undefined): Promise<void> {
  if (!url) throw ApplicationFailure.nonRetryable('alert sink `webhook` needs PLANNER_ALERT_WEBHOOK_URL', 'ConfigurationError');
  const sink = `alert webhook (PLANNER_ALERT_WEBHOOK_URL, host ${new URL(url).host})`;
  await postWebhook({
    url,
    body,
    idempotencyKey,
    contentType: 'application/json',
    dispatcher,
    timeoutMs: 10_000,
    ...(signal ? { signal } : {}),
    refused: { type: 'AddressRefusedError', prefix: sink },
    rejected: { type: 'AlertWebhookRejected', prefix: sink },
  });
}
