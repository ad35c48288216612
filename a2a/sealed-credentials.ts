// An upstream caller's webhook credentials (its push config's token and authentication
// credentials) sealed for the plan's history: the face seals them, the delivering activity opens
// them, both with a key derived from PLANNER_WEBHOOK_SECRET. History holds only the ciphertext
// (invariant 6: no secret in history). AES-256-GCM, so a changed ciphertext fails to open.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export interface WebhookSecrets {
  token?: string;
  credentials?: string;
}

const keyOf = (secret: string): Buffer => createHmac('sha256', secret).update('a2a-planner upstream push credentials v1').digest();

export function sealSecrets(secret: string, s: WebhookSecrets): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(s), 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** Throws when the value was not sealed with this secret (rotated, or tampered with). */
export function openSecrets(secret: string, sealed: string): WebhookSecrets {
  const [v, iv, body, tag] = sealed.split('.');
  if (v !== 'v1' || !iv || body === undefined || !tag) throw new Error('not a sealed webhook credential');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  return JSON.parse(plain) as WebhookSecrets;
}
