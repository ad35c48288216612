// The shape rules for a push-notification URL, pure (no DNS, no zod) so that the plan workflow's
// update validator applies them too. Where the URL may point is the outbound address policy's
// call (a2a/outbound-policy.ts: link-local and metadata addresses refused always, PLANNER_AGENT_ALLOW),
// checked by the face when the config is registered and again on every connect by the activity.
// A URL that carries a secret (userinfo, a query, a fragment) is refused when a config is registered:
// the plan keeps the URL in its history in the clear, while token and authentication are sealed.

/** Why the URL is refused by its form, or undefined. */
export function webhookUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not an absolute URL`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `${u.protocol} URLs are refused: only http and https`;
  if (u.username !== '' || u.password !== '') return 'a URL with credentials in it is refused: put them in token or authentication';
  return undefined;
}

/**
 * Why a caller may not register this webhook URL: the form rules above, and no query or fragment,
 * where callers put secrets (`?token=...`, `?sig=...`) that history would keep in the clear. One
 * rule without exceptions: a webhook that needs a secret takes it as the config's token or
 * authentication, which the face seals.
 */
export function registeredWebhookUrlProblem(url: string): string | undefined {
  const form = webhookUrlProblem(url);
  if (form !== undefined) return form;
  const u = new URL(url);
  if (u.search !== '' || url.includes('?')) return 'a URL with a query is refused (the plan keeps the URL in the clear): put secrets in token or authentication, which are sealed';
  if (u.hash !== '' || url.includes('#')) return 'a URL with a fragment is refused: put secrets in token or authentication, which are sealed';
  return undefined;
}
