// The agent card names the agent's own URLs; a proxy in front of the agent (the chaos proxy, the
// tests' cutting proxy) passes it on naming the proxy instead, so every later call goes through it.
import type { IncomingMessage, ServerResponse } from 'node:http';

export function relayCardVia(proxyUrl: string, agentOrigin: string, upRes: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  upRes.on('data', (c: Buffer) => chunks.push(c));
  upRes.on('end', () => {
    const card = Buffer.concat(chunks).toString().split(agentOrigin).join(proxyUrl);
    res.writeHead(upRes.statusCode ?? 502, { 'content-type': 'application/json' }).end(card);
  });
}
