// Per-task webhook tokens: an HMAC of the task under a secret from configuration. Each task gets
// its own unguessable token, and the receiver can check it without any stored state; the token
// itself never enters workflow history.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface PushSettings {
  /** Public base URL under which the push receiver is reachable by agents. */
  baseUrl: string;
  secret: string;
}

export function pushToken(secret: string, workflowId: string, taskId: string): string {
  return createHmac('sha256', secret).update(`${workflowId}\n${taskId}`).digest('base64url');
}

export function pushUrl(baseUrl: string, workflowId: string, taskId: string): string {
  return `${baseUrl.replace(/\/$/, '')}/a2a/push/${encodeURIComponent(workflowId)}/${encodeURIComponent(taskId)}`;
}

export function tokenMatches(secret: string, workflowId: string, taskId: string, presented: string): boolean {
  const expected = Buffer.from(pushToken(secret, workflowId, taskId));
  const got = Buffer.from(presented);
  return got.length === expected.length && timingSafeEqual(got, expected);
}
