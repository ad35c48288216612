/**
 * Agent-card discovery (`/.well-known/agent-card.json`, spec §8.2) and the choice of the
 * interface a client talks to (spec §8.3).
 */
import type { ErrorContext } from './call-context';
import { invalidResponse, noCompatibleInterface } from './errors';
import { toA2AError } from './errors/transport';
import { exchangeJson, type HeadersFor, type HttpTransport } from './http';
import { isV03Version, parseAgentCard } from './compat/v0_3/card';
import type { AgentCard, AgentInterface } from './schema';
import { A2A_VERSIONS, BINDINGS, type A2AVersion, type Binding } from './types';
import { describeProblem } from './validate';
import { trimTrailing } from './remote-text';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
export const A2A_PROTOCOL_VERSION = '1.0';

/** `http://host/x` → `http://host/x/.well-known/agent-card.json`; a URL ending in .json is used as is. */
export function agentCardUrl(baseUrl: string): string {
  const u = new URL(baseUrl);
  if (u.pathname.endsWith('.json')) return u.toString();
  u.pathname = trimTrailing(u.pathname, '/') + AGENT_CARD_PATH;
  return u.toString();
}

/** Fetches, validates and returns a card; relative interface URLs are made absolute. */
export async function fetchAgentCard(
  transport: HttpTransport,
  baseUrl: string,
  headersFor: HeadersFor,
  ctx: Omit<ErrorContext, 'url'>,
  o: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined; maxResponseBytes?: number | undefined } = {},
): Promise<AgentCard> {
  let url: string;
  try {
    url = agentCardUrl(baseUrl);
  } catch (e) {
    throw toA2AError(e, { ...ctx, url: baseUrl });
  }
  const c: ErrorContext = { ...ctx, url, operation: 'GetAgentCard' };
  const res = await exchangeJson(transport, { url, method: 'GET', headers: { ...headersFor(url), accept: 'application/json' } }, c, o);
  const parsed = parseAgentCard(res.json);
  if (!parsed.ok) throw invalidResponse(c, describeProblem(parsed.problem, 'agent card'));
  const card = parsed.value;
  for (const iface of card.supportedInterfaces) {
    try {
      iface.url = new URL(iface.url, url).toString();
    } catch {
      throw invalidResponse(c, `agent card field supportedInterfaces: url '${iface.url}' is not a URL`);
    }
  }
  return card;
}

function bindingOf(i: AgentInterface): Binding | undefined {
  const b = i.protocolBinding.toUpperCase();
  return BINDINGS.find((x) => x === b);
}

/** The header carries Major.Minor only; a card may still say "1.0.1". */
function speaksV1(i: AgentInterface): boolean {
  return /^1\.0(\.\d+)?$/.test(i.protocolVersion.trim());
}

function versionOf(i: AgentInterface): A2AVersion | undefined {
  if (speaksV1(i)) return '1.0';
  return isV03Version(i.protocolVersion) ? '0.3' : undefined;
}

type Usable = { iface: AgentInterface; binding: Binding; version: A2AVersion };

/**
 * The protocol version first: v1.0 whenever the card offers a usable v1.0 interface, else v0.3
 * (or only the version `version` forces). Then, at that version, without a binding preference the
 * first interface in card order (the card lists them by the agent's preference, spec §8.3.1);
 * with one, the first match of each preferred binding in turn.
 */
export function selectInterface(
  card: AgentCard,
  preferred: readonly Binding[] | undefined,
  ctx: ErrorContext,
  version?: A2AVersion,
): Usable {
  const usable = card.supportedInterfaces
    .map((iface) => ({ iface, binding: bindingOf(iface), version: versionOf(iface) }))
    .filter((x): x is Usable => x.binding !== undefined && x.version !== undefined);
  const order = preferred && preferred.length > 0 ? preferred : undefined;
  for (const v of version ? [version] : A2A_VERSIONS) {
    const at = usable.filter((u) => u.version === v);
    const chosen = order ? order.map((b) => at.find((u) => u.binding === b)).find((u) => u !== undefined) : at[0];
    if (chosen) return chosen;
  }
  const offered = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', ');
  const wanted = (order ?? BINDINGS).join(' or ');
  const versions = version ?? A2A_VERSIONS.join(' or ');
  throw noCompatibleInterface(ctx, `no interface with binding ${wanted} at protocol version ${versions} (card offers: ${offered})`);
}
