// Delivers one push notification of the planner's own A2A task to an upstream caller's webhook
// (spec §4.3.3): POST of one StreamResponse in HTTP+JSON form, with the caller's credentials.
// Temporal retries it with backoff; every attempt carries the same Idempotency-Key, so a receiver
// recognises a retried or replayed delivery. A webhook an A2A v0.3 caller registered gets the
// same change as v0.3's bare `kind`-tagged event (`status-update`, `artifact-update`) as
// `application/json`, translated at this edge by @a2a-js/sdk's v0.3 push serializer.
import { ApplicationFailure } from '@temporalio/common';
import { StreamResponse } from '@a2a-js/sdk';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { outboundPolicy } from '../a2a/outbound-policy';
import { webhookUrlProblem } from '../a2a/webhook-url';
import { openSecrets } from '../a2a/sealed-credentials';
import { postWebhook } from './post-webhook';

export interface UpstreamPushInput {
  /** The config's id (for logs) and where to POST. */
  configId: string;
  url: string;
  /** authentication.scheme of the config. */
  scheme?: string;
  /** The token and credentials, sealed by the face (a2a/sealed-credentials.ts). */
  sealed?: string;
  /** One StreamResponse: {statusUpdate} or {artifactUpdate}. */
  body: object;
  /** "0.3": the config was registered over A2A v0.3; the body is sent in v0.3's form. */
  protocolVersion?: '0.3';
  /** <task id>/<event>/<config id>: the same for every attempt at the same change. */
  idempotencyKey: string;
}

const TIMEOUT_MS = 15_000;

/** `secret`: PLANNER_WEBHOOK_SECRET, which the face sealed the configs' secrets with. */
export function createDeliverUpstreamPush(logger: Logger, secret: string | undefined) {
  // The agents' address policy applies to webhooks too, checked on every connect (after DNS).
  let dispatcher: Dispatcher | undefined;
  const policed = (): Dispatcher => (dispatcher ??= outboundPolicy().dispatcher());
  return async function deliverUpstreamPush(input: UpstreamPushInput): Promise<{ status: number }> {
    const refused = (why: string) => ApplicationFailure.create({ type: 'WebhookUrlRefused', nonRetryable: true, message: `push config ${input.configId}: ${why}` });
    const problem = webhookUrlProblem(input.url) ?? outboundPolicy().checkUrl(input.url);
    if (problem) throw refused(problem);
    let secrets: { token?: string; credentials?: string } = {};
    if (input.sealed) {
      if (!secret) throw ApplicationFailure.create({ type: 'ConfigurationError', nonRetryable: true, message: `push config ${input.configId}: its credentials are sealed; PLANNER_WEBHOOK_SECRET is not set on this worker` });
      try {
        secrets = openSecrets(secret, input.sealed);
      } catch (err) {
        throw ApplicationFailure.create({ type: 'ConfigurationError', nonRetryable: true, message: `push config ${input.configId}: its credentials do not open with this worker's PLANNER_WEBHOOK_SECRET (${(err as Error).message})` });
      }
    }
    const headers: Record<string, string> = {};
    if (input.scheme) headers.authorization = `${input.scheme} ${secrets.credentials ?? ''}`.trim();
    // The token has no transport of its own in v1.0; a2a-js and 0.3 receivers read this header.
    if (secrets.token) headers['x-a2a-notification-token'] = secrets.token;
    const v03 = input.protocolVersion === '0.3';
    const status = await postWebhook({
      url: input.url,
      body: v03 ? v03Event(input.body) : input.body,
      idempotencyKey: input.idempotencyKey,
      contentType: v03 ? 'application/json' : 'application/a2a+json',
      headers,
      dispatcher: policed(),
      timeoutMs: TIMEOUT_MS,
      refused: { type: 'WebhookUrlRefused', prefix: `push config ${input.configId}` },
      rejected: { type: 'WebhookRejected', prefix: `push config ${input.configId}: webhook at host ${new URL(input.url).host}` },
    });
    logger.debug({ configId: input.configId, key: input.idempotencyKey, status }, 'push notification delivered');
    return { status };
  };
}

/**
 * The v0.3 form of one StreamResponse: the bare event the SDK's serializer gives without a task
 * (its sender passes the whole Task when it keeps one; the plan's delivery carries the change only).
 */
function v03Event(body: object): object {
  return JSON.parse(new V03PushNotificationSerializer().serialize(StreamResponse.fromJSON(body)).body) as object;
}
