// A loopback HTTP proxy in front of an agent that can make a request ambiguous: it forwards the
// request, lets the agent act on it, then drops the client's connection instead of replying.
// It can also play an agent that refuses ListTasks (as a2a-go does to unauthenticated callers),
// a slow agent, and a stream that breaks right after its first frame.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { relayCardVia } from '../../chaos/relay-card';

/** A request as the proxy sees it, with its A2A method on either binding ('' when unknown). */
export interface ProxiedRequest {
  method: string;
  path: string;
  body: string;
}

export interface CuttingProxy {
  baseUrl: string;
  /** Requests that were forwarded and then cut. */
  cut: Array<{ at: number; body: string }>;
  /** Cut the next forwarded request whose body matches. */
  cutNext(match: (body: string) => boolean): void;
  /**
   * Forward the next matching request; if its reply is a stream, pass its first frame on and then
   * drop the connection (the agent keeps working); any other reply is dropped whole. afterHeaders:
   * drop it as soon as the stream's headers are through, before any frame (a2a-python 0.3 sends a
   * subscription nothing until the task moves).
   */
  cutStreamAfterFirstFrame(match: (req: ProxiedRequest) => boolean, o?: { afterHeaders?: boolean }): void;
  /** From now on answer ListTasks as a2a-go answers an unauthenticated caller (-31401 / HTTP 401). */
  refuseListTasks(): void;
  /** ListTasks requests answered with that refusal. */
  refused: Array<{ at: number; path: string }>;
  /** Hold every matching request this long before forwarding it (a slow agent). */
  delay(match: (req: ProxiedRequest) => boolean, ms: number): void;
  /** Requests that were held: when they arrived and when they were forwarded. */
  delayed: Array<{ at: number; method: string; until: number }>;
  close(): Promise<void>;
}

/** The A2A method of a request on either binding of the test agents (JSON-RPC body, or REST route). */
export function a2aMethodOf(httpMethod: string, path: string, body: string): string {
  if (path.includes('/a2a/rest')) {
    const route = path.split('?')[0]!.replace(/^.*\/a2a\/rest/, '');
    if (route === '/message:send') return 'SendMessage';
    if (route === '/message:stream') return 'SendStreamingMessage';
    if (route === '/tasks' && httpMethod === 'GET') return 'ListTasks';
    if (/^\/tasks\/[^/:]+$/.test(route) && httpMethod === 'GET') return 'GetTask';
    if (/^\/tasks\/[^/:]+:subscribe$/.test(route)) return 'SubscribeToTask';
    if (/^\/tasks\/[^/:]+:cancel$/.test(route)) return 'CancelTask';
    return '';
  }
  try {
    const method = (JSON.parse(body) as { method?: unknown }).method;
    return typeof method === 'string' ? method : '';
  } catch {
    return '';
  }
}

/** a2a-go v2's refusal of ListTasks to a caller without a user (taskstore InMemory.List). */
function refuseLikeA2aGo(res: ServerResponse, path: string, body: string): void {
  const info = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'UNAUTHENTICATED', domain: 'a2a-protocol.org' }];
  if (path.includes('/a2a/rest')) {
    const status = { error: { code: 401, status: 'UNAUTHENTICATED', message: 'unauthenticated', details: info } };
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(status));
    return;
  }
  let id: unknown = null;
  try {
    id = (JSON.parse(body) as { id?: unknown }).id ?? null;
  } catch {
    // keep null
  }
  const envelope = { jsonrpc: '2.0', id, error: { code: -31401, message: 'unauthenticated', data: info } };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(envelope));
}

export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const upstream = new URL(target);
  const cut: CuttingProxy['cut'] = [];
  let pending: ((body: string) => boolean) | undefined;
  let pendingStreamCut: ((req: ProxiedRequest) => boolean) | undefined;
  let cutAfterHeaders = false;
  let refusing = false;
  const refused: CuttingProxy['refused'] = [];
  const holds: Array<{ match: (req: ProxiedRequest) => boolean; ms: number }> = [];
  const delayed: CuttingProxy['delayed'] = [];
  const timers = new Set<NodeJS.Timeout>();
  let baseUrl = '';

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const text = body.toString();
    const cutThis = pending !== undefined && pending(text);
    if (cutThis) pending = undefined;
    const seen: ProxiedRequest = { method: a2aMethodOf(req.method ?? '', req.url ?? '', text), path: req.url ?? '', body: text };
    const cutStream = !cutThis && pendingStreamCut !== undefined && pendingStreamCut(seen);
    if (cutStream) pendingStreamCut = undefined;
    const up = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (upRes) => {
        if (cutStream) {
          const isStream = String(upRes.headers['content-type'] ?? '').startsWith('text/event-stream');
          if (!isStream) {
            upRes.resume();
            upRes.on('end', () => {
              cut.push({ at: Date.now(), body: text });
              req.socket.destroy();
            });
            return;
          }
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          if (cutAfterHeaders) {
            res.flushHeaders();
            upRes.resume();
            setTimeout(() => {
              cut.push({ at: Date.now(), body: text });
              req.socket.destroy();
            }, 100);
            return;
          }
          let buffered = '';
          upRes.on('data', (c: Buffer) => {
            buffered += c.toString();
            const end = buffered.search(/\r?\n\r?\n/);
            if (end < 0) return;
            upRes.removeAllListeners('data');
            const frame = buffered.slice(0, end) + '\n\n';
            // Only that frame reaches the client; the agent's side stays open and keeps working.
            res.write(frame, () => {
              cut.push({ at: Date.now(), body: text });
              req.socket.destroy();
            });
          });
          return;
        }
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
          relayCardVia(baseUrl, upstream.origin, upRes, res);
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

  const route = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const text = body.toString();
    const seen: ProxiedRequest = { method: a2aMethodOf(req.method ?? '', req.url ?? '', text), path: req.url ?? '', body: text };
    if (refusing && seen.method === 'ListTasks') {
      refused.push({ at: Date.now(), path: seen.path });
      refuseLikeA2aGo(res, seen.path, text);
      return;
    }
    const hold = holds.find((h) => h.match(seen));
    if (!hold) {
      forward(req, res, body);
      return;
    }
    const record = { at: Date.now(), method: seen.method, until: Number.POSITIVE_INFINITY };
    delayed.push(record);
    const timer = setTimeout(() => {
      timers.delete(timer);
      record.until = Date.now();
      if (!req.socket.destroyed) forward(req, res, body);
    }, hold.ms);
    timers.add(timer);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => route(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    cut,
    cutNext: (match) => {
      pending = match;
    },
    cutStreamAfterFirstFrame: (match, o = {}) => {
      pendingStreamCut = match;
      cutAfterHeaders = o.afterHeaders === true;
    },
    refuseListTasks: () => {
      refusing = true;
    },
    refused,
    delay: (match, ms) => {
      holds.push({ match, ms });
    },
    delayed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
