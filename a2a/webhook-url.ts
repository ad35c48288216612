// The shape rules for a push-notification URL, pure (no DNS, no zod) so that the plan workflow's
// update validator applies them too. Where the URL may point is the outbound address policy's
// call (a2a/outbound-policy.ts: link-local and metadata addresses refused always, PLANNER_AGENT_ALLOW),
// checked by the face when the config is registered and again on every connect by the activity.

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
