// One webhook POST, as the operator alerts and the upstream push notifications both make it: JSON
// with an Idempotency-Key (the same on every attempt, so a receiver recognises a retry), through the
// outbound address policy's dispatcher, a 2xx accepted, 408/429/5xx left to Temporal's retries and
// any other status final. Messages name the host only: webhook URLs often carry a secret in the path.
import { ApplicationFailure } from '@temporalio/common';
import { request, type Dispatcher } from 'undici';
import { refusalIn } from '../a2a/outbound-policy';

export interface WebhookPost {
  url: string;
  body: object;
  idempotencyKey: string;
  contentType: string;
  /** More headers (the caller's credentials). */
  headers?: Record<string, string>;
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** Aborts the post (a caller's own bound on the whole of it, the connect included). */
  signal?: AbortSignal;
  /** How a refused address fails: its type and the message's head. */
  refused: { type: string; prefix: string };
  /** How a non-2xx answer fails: its type and the message's head (before "answered HTTP n"). */
  rejected: { type: string; prefix: string };
}

/** The status of the accepted answer; an ApplicationFailure otherwise. */
export async function postWebhook(p: WebhookPost): Promise<number> {
  let res: Dispatcher.ResponseData;
  try {
    res = await request(p.url, {
      dispatcher: p.dispatcher,
      method: 'POST',
      headers: { 'content-type': p.contentType, 'idempotency-key': p.idempotencyKey, ...p.headers },
      body: JSON.stringify(p.body),
      headersTimeout: p.timeoutMs,
      bodyTimeout: p.timeoutMs,
      ...(p.signal ? { signal: p.signal } : {}),
    });
  } catch (e) {
    const refusal = refusalIn(e);
    if (refusal) throw ApplicationFailure.create({ type: p.refused.type, message: `${p.refused.prefix}: not connecting: ${refusal.message}`, nonRetryable: true });
    throw e;
  }
  await res.body.dump();
  if (res.statusCode >= 200 && res.statusCode < 300) return res.statusCode;
  const retryable = res.statusCode === 408 || res.statusCode === 429 || res.statusCode >= 500;
  throw ApplicationFailure.create({ type: p.rejected.type, message: `${p.rejected.prefix} answered HTTP ${res.statusCode}`, nonRetryable: !retryable });
}
