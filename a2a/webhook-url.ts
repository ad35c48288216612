// Which push-notification URLs an agent may POST to (spec §13.2: guard webhooks against SSRF).
// Pure, so the face's edge and the plan workflow's update validator refuse the same URLs. Loopback
// and private ranges stay allowed (a planner and its callers often share a host or a network);
// link-local addresses, where cloud metadata services answer, never are.

import { AuthenticationInfoSchema } from './schema';

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

/** True for 169.254.0.0/16 and fe80::/10, also written as IPv4-mapped IPv6. */
export function isLinkLocalAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (/^169\.254\.\d{1,3}\.\d{1,3}$/.test(a)) return true;
  if (!a.includes(':')) return false;
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) {
    if (mapped[2] === undefined) return isLinkLocalAddress(mapped[1]!);
    return (parseInt(mapped[1]!, 16) & 0xffff) === 0xa9fe;
  }
  const first = a.startsWith('::') ? 0 : parseInt(a.split(':')[0]!, 16);
  return (first & 0xffc0) === 0xfe80;
}

/** Why the URL is refused, or undefined when the agent may POST to it. */
export function webhookUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not an absolute URL`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `${u.protocol} URLs are refused: only http and https`;
  if (u.username !== '' || u.password !== '') return 'a URL with credentials in it is refused: put them in token or authentication';
  // The URL parser has already normalised 2852039166, 0xa9.0xfe... and [::ffff:169.254.1.1].
  if (isLinkLocalAddress(u.hostname)) return `${u.hostname} is a link-local address (169.254.0.0/16, fe80::/10): refused`;
  if (METADATA_HOSTS.has(u.hostname.toLowerCase().replace(/\.$/, ''))) return `${u.hostname} is a cloud metadata host: refused`;
  return undefined;
}

/** Why a push config cannot be registered, naming its field; undefined when it can. */
export function pushConfigProblem(c: { url?: unknown; token?: unknown; authentication?: unknown }): string | undefined {
  if (typeof c?.url !== 'string' || c.url === '') return 'url: a webhook URL is required';
  const url = webhookUrlProblem(c.url);
  if (url) return `url: ${url}`;
  if (c.token !== undefined && typeof c.token !== 'string') return 'token: must be a string';
  if (c.authentication !== undefined && !AuthenticationInfoSchema.safeParse(c.authentication).success) return 'authentication: needs a scheme (and credentials)';
  return undefined;
}
