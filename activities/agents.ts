// One A2A client per agent, built from its card (fetched once and kept for a while) and its
// credentials, which the client reads from configuration by agent name, never from workflow history.
// All clients share one keep-alive transport, so refreshing a card never strands a pool.
import {
  CredentialsConfigError,
  HttpTransport,
  connectA2A,
  createA2AClient,
  type A2AClient,
  type A2AClientOptions,
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
    const key = `${agent.name}|${agent.binding ?? ''}|${agent.credentialEnv ?? ''}|${agent.url ?? JSON.stringify(agent.card)}`;
    const hit = this.clients.get(key);
    if (hit && Date.now() - hit.at < CARD_TTL_MS) return hit.client;
    // The client reads the agent's credentials from configuration by this name.
    const opts: A2AClientOptions = {
      maxFrameBytes: AGENT_MAX_MESSAGE_BYTES,
      maxResponseBytes: AGENT_MAX_MESSAGE_BYTES,
      // A stream may carry many frames (a long wait's updates), but not without end.
      maxStreamBytes: 4 * AGENT_MAX_MESSAGE_BYTES,
      ...this.options,
      agentName: agent.name,
      transport: this.transport,
      ...(agent.binding ? { preferredBindings: [agent.binding === 'jsonrpc' ? 'JSONRPC' : 'HTTP+JSON'] } : {}),
      ...(agent.credentialEnv ? { credentials: { type: 'bearer', token: tokenFrom(agent.name, agent.credentialEnv) } } : {}),
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

/** A plan names the variable holding an agent's token; the token itself is read here, on the worker. */
function tokenFrom(agentName: string, variable: string): string {
  const token = process.env[variable];
  if (token === undefined || token.trim() === '') {
    throw new CredentialsConfigError(`agent ${agentName}: its credential variable ${variable} is not set on this worker`);
  }
  if (/[\r\n\0]/.test(token)) throw new CredentialsConfigError(`agent ${agentName}: ${variable} contains a line break or NUL`);
  return token;
}
