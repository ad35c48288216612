// A loopback HTTP proxy in front of one agent, misbehaving on purpose in one of its modes:
//   drop:  forward the request, let the agent act on it, then drop the caller's connection;
//   cut:   pass streams on, but cut each one a few hundred milliseconds after it opens;
//   503:   bursts of overload: every request gets 503 (Retry-After: 0) for 0.5-1.5 s, then 2-4 s pass;
//   reset: reset the caller's connection (TCP RST) before forwarding;
//   mixed: each request draws one of the above.
// The agent card is rewritten to name the proxy, so every call goes through it.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { relayCardVia } from './relay-card';

export const PROXY_MODES = ['drop', 'cut', '503', 'reset', 'mixed'] as const;
export type ProxyMode = 'pass' | (typeof PROXY_MODES)[number];

export interface FaultCounts {
  forwarded: number;
  dropped: number;
  cut: number;
  unavailable: number;
  reset: number;
}

export interface FaultyProxy {
  baseUrl: string;
  counts: FaultCounts;
  /** The mode from now on, with at most `maxFaults` drops and resets in it (each retry must get through in the end). */
  setMode(mode: ProxyMode, maxFaults?: number): void;
  close(): Promise<void>;
}

/** rate: the share of requests dropped or reset; streams are always cut in cut mode. */
export async function startFaultyProxy(target: string, rng: () => number, rate = 0.3): Promise<FaultyProxy> {
  const upstream = new URL(target);
  const counts: FaultCounts = { forwarded: 0, dropped: 0, cut: 0, unavailable: 0, reset: 0 };
  let mode: ProxyMode = 'pass';
  let burstUntil = 0;
  let quietUntil = 0;
  let baseUrl = '';
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const isCard = (req: IncomingMessage): boolean => (req.url ?? '').startsWith('/.well-known/');
  const pick = (): ProxyMode => {
    if (mode !== 'mixed') return mode;
    const modes = ['drop', 'cut', '503', 'reset', 'pass', 'pass'] as const;
    return modes[Math.floor(rng() * modes.length)]!;
  };

  // The first chance in each phase always strikes: a short phase (CI's two runs) must not pass
  // without the fault it is there to inject; later chances strike at `rate`.
  let injectedBefore = 0;
  const injected = (): number => counts.dropped + counts.cut + counts.unavailable + counts.reset;
  let budget = Infinity;
  const strikes = (): boolean => injected() - injectedBefore < budget && (injected() === injectedBefore || rng() < rate);

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, fault: ProxyMode): void => {
    const hit = strikes();
    const up = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (upRes) => {
        counts.forwarded++;
        if (fault === 'drop' && hit && !isCard(req)) {
          // The agent has the request and answers; the caller's connection closes without a byte
          // of it: at the end of a reply, or at a stream's first frame (a stream may stay open).
          const drop = (): void => {
            if (req.socket.destroyed) return;
            counts.dropped++;
            req.socket.destroy();
            up.destroy();
          };
          upRes.on('data', () => {
            if (String(upRes.headers['content-type'] ?? '').startsWith('text/event-stream')) drop();
          });
          upRes.on('end', drop);
          return;
        }
        if (isCard(req)) {
          relayCardVia(baseUrl, upstream.origin, upRes, res);
          return;
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
        const stream = String(upRes.headers['content-type'] ?? '').startsWith('text/event-stream');
        if (fault === 'cut' && stream) {
          const t = setTimeout(() => {
            timers.delete(t);
            if (res.writableEnded) return;
            counts.cut++;
            up.destroy();
            req.socket.destroy();
          }, 100 + Math.floor(rng() * 300));
          timers.add(t);
        }
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    up.end(body);
  };

  const route = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const fault = isCard(req) && mode !== 'mixed' ? 'pass' : pick();
    const now = Date.now();
    if (fault === '503' && now >= quietUntil) {
      // An overload: everything gets 503 for 0.5-1.5 s, then 2-4 s of calm.
      burstUntil = now + 500 + rng() * 1000;
      quietUntil = burstUntil + 2000 + rng() * 2000;
    }
    if (fault === '503' && now < burstUntil) {
      counts.unavailable++;
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' }).end('overloaded');
      return;
    }
    if (fault === 'reset' && strikes()) {
      counts.reset++;
      req.socket.resetAndDestroy();
      return;
    }
    forward(req, res, body, fault);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => route(req, res, Buffer.concat(chunks)));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    counts,
    setMode(m, maxFaults = Infinity) {
      mode = m;
      budget = maxFaults;
      injectedBefore = injected();
      burstUntil = quietUntil = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
