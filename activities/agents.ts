// One A2A client per agent, built from its card (fetched once and kept for a while) and its
// credentials, which the client reads from configuration by agent name, never from workflow history,
// and sends only to the origins they are bound to. An agent a caller named gets none.
// All clients share one keep-alive transport, so refreshing a card never strands a pool.
import {
  CredentialsConfigError,
  HttpTransport,
  connectA2A,
  createA2AClient,
  credentialFromVariable,
  type A2AClient,
  type A2AClientOptions,
  type AgentCredentials,
} from '../a2a';
import type { AgentRef } from '../workflows/delegated-task/input';

const CARD_TTL_MS = 5 * 60_000;
/**
 * What one stream frame or response from an agent may carry (the a2a/ defaults are 4 and 16 MiB).
 * Large artifacts reach Temporal through the claim-check codec (payloads/), which has the same cap.
 */
export const AGENT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export class AgentDirectory {
  private readonly clients = new Map<string, { client: Promise<A2AClient>; at: number }>();
  private readonly transport: HttpTransport;

  constructor(private readonly options: Omit<A2AClientOptions, 'agentName' | 'credentials' | 'transport'> = {}) {
    this.transport = new HttpTransport(options.timeouts ? { timeouts: options.timeouts } : {});
  }

  client(agent: AgentRef): Promise<A2AClient> {
    const key = `${agent.name}|${agent.binding ?? ''}|${agent.a2aVersion ?? ''}|${agent.credentialEnv ?? ''}|${agent.callerNamed ? 'caller' : ''}|${agent.url ?? JSON.stringify(agent.card)}`;
    const hit = this.clients.get(key);
    if (hit && Date.now() - hit.at < CARD_TTL_MS) return hit.client;
    // The client reads the agent's credentials from configuration by this name (unless given here).
    const credentials = credentialsOf(agent);
    const opts: A2AClientOptions = {
      maxFrameBytes: AGENT_MAX_MESSAGE_BYTES,
      maxResponseBytes: AGENT_MAX_MESSAGE_BYTES,
      // A stream may carry many frames (a long wait's updates), but not without end.
      maxStreamBytes: 4 * AGENT_MAX_MESSAGE_BYTES,
      ...this.options,
      agentName: agent.name,
      transport: this.transport,
      ...(agent.binding ? { preferredBindings: [agent.binding === 'jsonrpc' ? 'JSONRPC' : 'HTTP+JSON'] } : {}),
      ...(agent.a2aVersion ? { a2aVersion: agent.a2aVersion } : {}),
      ...(credentials !== undefined ? { credentials } : {}),
    };
    const client = agent.card
      ? Promise.resolve().then(() => createA2AClient(agent.card!, opts))
      : connectA2A(agent.url!, opts);
    // A failed card fetch must not be cached.
    client.catch(() => this.clients.delete(key));
    this.clients.set(key, { client, at: Date.now() });
    return client;
  }

  async close(): Promise<void> {
    this.clients.clear();
    await this.transport.close();
  }
}

/**
 * The credential given here rather than found by name: none for an agent a caller named; the
 * token of `credentialEnv` (a PLANNER_AGENT_TOKEN_* variable) bound to the origin of the URL the
 * operator's plan names (for an inline card of the operator's, its interfaces' origins), so a
 * card pointing its interfaces elsewhere never receives it. Undefined: the configuration's, by name.
 */
function credentialsOf(agent: AgentRef): AgentCredentials | null | undefined {
  if (agent.callerNamed) {
    if (agent.credentialEnv) throw new CredentialsConfigError(`agent ${agent.name}: credentialEnv: an agent a caller named is given no credential variable`);
    return null;
  }
  if (!agent.credentialEnv) return undefined;
  const urls = agent.url !== undefined ? [agent.url] : (agent.card?.supportedInterfaces ?? []).map((i) => i.url);
  const origins = [...new Set(urls.flatMap((u) => (URL.canParse(u) ? [new URL(u).origin] : [])))];
  return credentialFromVariable(agent.name, agent.credentialEnv, origins);
}
