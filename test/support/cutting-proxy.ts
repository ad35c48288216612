// A loopback HTTP proxy in front of an agent that can make a request ambiguous: it forwards the
// request, lets the agent act on it, then drops the client's connection instead of replying.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CuttingProxy {
  baseUrl: string;
  /** Requests that were forwarded and then cut. */
  cut: Array<{ at: number; body: string }>;
  /** Cut the next forwarded request whose body matches. */
  cutNext(match: (body: string) => boolean): void;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const upstream = new URL(target);
  const cut: CuttingProxy['cut'] = [];
  let pending: ((body: string) => boolean) | undefined;
  let baseUrl = '';

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const text = body.toString();
    const cutThis = pending !== undefined && pending(text);
    if (cutThis) pending = undefined;
    const up = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (upRes) => {
        if (cutThis) {
          // The agent has the request; consume its reply, then drop ours on the floor.
          upRes.resume();
          upRes.on('end', () => {
            cut.push({ at: Date.now(), body: text });
            req.socket.destroy();
          });
          return;
        }
        const isCard = req.url?.startsWith('/.well-known/agent-card.json');
        if (isCard) {
          // The card names the agent's own URLs; point them at the proxy so every call goes through it.
          const chunks: Buffer[] = [];
          upRes.on('data', (c: Buffer) => chunks.push(c));
          upRes.on('end', () => {
            const card = Buffer.concat(chunks).toString().split(upstream.origin).join(baseUrl);
            res.writeHead(upRes.statusCode ?? 502, { 'content-type': 'application/json' }).end(card);
          });
          return;
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    up.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    cut,
    cutNext: (match) => {
      pending = match;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
