/**
 * A misbehaving "agent" on plain node:http. It serves a valid v1.0 card (JSON-RPC at /jsonrpc,
 * HTTP+JSON at /rest) and answers every other request according to the current mode, shaped
 * for the binding the request came in on. It counts open sockets so tests can prove the client
 * released every connection.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type HostileMode =
  | 'ok-task' // a valid Task, the control case
  | 'invalid-json'
  | 'html-200'
  | 'unknown-state'
  | 'missing-field'
  | 'sse-ok' // task, statusUpdate COMPLETED, clean end
  | 'sse-crlf-comments' // the same frames with CRLF, comments, multi-line data, tiny chunks
  | 'sse-keepalive' // only comments for a while, then a frame: comments count as traffic
  | 'sse-truncated' // the stream ends inside a frame
  | 'sse-truncated-json' // a complete event whose JSON is cut off
  | 'sse-huge' // a 10 MiB frame
  | 'sse-stall' // one frame, then silence forever
  | 'sse-bad-state' // a frame with an unknown task state, then silence
  | 'sse-error-frame' // a JSON-RPC error envelope / REST `event: error` mid-stream
  | 'unavailable-503'
  | 'throttled-429'
  | 'reset-mid-body'
  | 'stall-mid-body' // headers and half a body, then silence
  | 'reset-mid-stream'
  | 'no-headers' // never answers
  | 'echo-auth' // 401 whose message quotes the Authorization header back
  | 'subscribe-405' // REST: POST :subscribe gets 405, GET streams
  | 'failed-status' // every call: the task FAILED, its status message the text of setStatusText (a stream gets it as one frame)
  | 'custom';

export interface CustomResponse {
  status: number;
  contentType?: string;
  headers?: Record<string, string>;
  body: string;
}

export interface RecordedHostileRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HostileAgent {
  baseUrl: string;
  /** The card JSON served at /.well-known/agent-card.json. */
  card: Record<string, unknown>;
  setMode(mode: HostileMode, custom?: CustomResponse): void;
  /** Replaces the served card (e.g. a v0.3 card). */
  setCard(card: unknown): void;
  /** The status message text of 'failed-status' (e.g. a megabyte of whitespace). */
  setStatusText(text: string): void;
  /** Sockets currently open on the server side. */
  openConnections(): number;
  /** Sockets accepted since start (keep-alive reuse keeps this low). */
  totalConnections(): number;
  /** Resolves once no socket is open, or rejects after `ms`. */
  waitForNoConnections(ms?: number): Promise<void>;
  requests: RecordedHostileRequest[];
  close(): Promise<void>;
}

const MiB = 1024 * 1024;

function validTask(state = 'TASK_STATE_WORKING'): Record<string, unknown> {
  return { id: 'task-1', contextId: 'ctx-1', status: { state, timestamp: '2026-01-01T00:00:00.000Z' } };
}

export async function startHostileAgent(): Promise<HostileAgent> {
  let mode: HostileMode = 'ok-task';
  let custom: CustomResponse | undefined;
  let statusText = 'failed on purpose';
  const sockets = new Set<Socket>();
  let accepted = 0;
  const requests: RecordedHostileRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    accepted++;
    s.on('close', () => sockets.delete(s));
    // A client that drops the connection makes our pending writes fail; that is the point.
    s.on('error', () => undefined);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let card: unknown = {
    name: 'hostile',
    description: 'answers badly on purpose',
    version: '0.0.1',
    supportedInterfaces: [
      { url: `${baseUrl}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${baseUrl}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'misbehave', name: 'misbehave', description: 'misbehaves', tags: [] }],
    someFutureField: { tolerated: true },
  };
  const initialCard = card as Record<string, unknown>;

  function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = req.url ?? '/';
    requests.push({ method: req.method ?? '', url, headers: req.headers, body });
    if (url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
      return;
    }
    const rpc = url.startsWith('/jsonrpc');
    let id: unknown = null;
    if (rpc) {
      try {
        id = (JSON.parse(body) as { id?: unknown }).id ?? null;
      } catch {
        id = null;
      }
    }
    const wrap = (result: unknown): unknown => (rpc ? { jsonrpc: '2.0', id, result } : result);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': rpc ? 'application/json' : 'application/a2a+json', ...headers }).end(JSON.stringify(value));
    };
    const sse = (): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
    };
    const frame = (value: unknown): string => `data: ${JSON.stringify(wrap(value))}\n\n`;

    switch (mode) {
      case 'ok-task':
        return json(200, wrap({ task: validTask() }));
      case 'invalid-json':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{"task":');
        return;
      case 'html-200':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body><h1>Welcome to nginx!</h1></body></html>');
        return;
      case 'unknown-state':
        return json(200, wrap({ task: validTask('TASK_STATE_BOGUS') }));
      case 'missing-field': {
        const task = validTask();
        delete task['id'];
        return json(200, wrap({ task }));
      }
      case 'sse-ok':
        sse();
        res.write(frame({ task: validTask('TASK_STATE_SUBMITTED') }));
        res.end(frame({ statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } }));
        return;
      case 'sse-crlf-comments': {
        sse();
        const first = JSON.stringify(wrap({ task: validTask('TASK_STATE_SUBMITTED') }), null, 1).split('\n');
        const second = JSON.stringify(wrap({ statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } }));
        // Multi-line data (the JSON pretty-printed over several `data:` lines), CRLF and bare
        // CR line ends, comments, unknown fields, an `id:`, and writes of a few bytes each.
        const text =
          ': hello\r\n\r\n' +
          first.map((l) => `data:${l}\r\n`).join('') +
          'id: 7\r\nretry: 1000\r\nfoo: bar\r\n\r\n' +
          `: keep-alive\r\r` +
          `event: message\rdata: ${second}\r\r`;
        const bytes = Buffer.from(text, 'utf8');
        let i = 0;
        const pump = (): void => {
          if (i >= bytes.length) return void res.end();
          const n = 1 + (i % 7);
          res.write(bytes.subarray(i, i + n));
          i += n;
          later(1, pump);
        };
        pump();
        return;
      }
      case 'sse-keepalive': {
        sse();
        let n = 0;
        const tick = (): void => {
          if (res.destroyed) return;
          if (n++ < 6) {
            res.write(': ping\n\n');
            later(100, tick);
          } else {
            res.end(frame({ task: validTask('TASK_STATE_COMPLETED') }));
          }
        };
        tick();
        return;
      }
      case 'sse-truncated':
        sse();
        res.write(frame({ task: validTask('TASK_STATE_SUBMITTED') }));
        res.end('data: {"statusUpdate":{"taskId":"task-1","con');
        return;
      case 'sse-truncated-json':
        sse();
        res.write(frame({ task: validTask('TASK_STATE_SUBMITTED') }));
        res.end('data: {"statusUpdate":{"taskId":"task-1","con\n\n');
        return;
      case 'sse-huge': {
        sse();
        res.write('data: {"task":{"id":"');
        const block = 'x'.repeat(64 * 1024);
        let sent = 0;
        const pump = (): void => {
          while (sent < 10 * MiB && !res.destroyed) {
            sent += block.length;
            if (!res.write(block)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end('"}}\n\n');
        };
        pump();
        return;
      }
      case 'sse-stall':
        sse();
        res.write(frame({ task: validTask('TASK_STATE_WORKING') }));
        return; // and never another byte
      case 'sse-bad-state':
        sse();
        res.write(frame({ task: validTask('TASK_STATE_WORKING') }));
        res.write(frame({ statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_PAUSED' } } }));
        return;
      case 'sse-error-frame':
        sse();
        res.write(frame({ task: validTask('TASK_STATE_WORKING') }));
        if (rpc) {
          res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'Task not found: task-1' } })}\n\n`);
        } else {
          const status = { error: { code: 404, status: 'NOT_FOUND', message: 'Task not found: task-1', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] } };
          res.end(`event: error\ndata: ${JSON.stringify(status)}\n\n`);
        }
        return;
      case 'unavailable-503':
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '2' }).end('overloaded, come back later');
        return;
      case 'throttled-429':
        res
          .writeHead(429, { 'content-type': 'text/plain', 'retry-after': new Date(Date.now() + 5000).toUTCString() })
          .end('slow down');
        return;
      case 'reset-mid-body':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"task-1",');
        later(20, () => req.socket.resetAndDestroy());
        return;
      case 'stall-mid-body':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"task-1",');
        return;
      case 'reset-mid-stream':
        sse();
        res.write(frame({ task: validTask('TASK_STATE_WORKING') }));
        later(20, () => req.socket.resetAndDestroy());
        return;
      case 'no-headers':
        return; // the request hangs until the client gives up
      case 'echo-auth': {
        const auth = req.headers.authorization ?? req.headers['x-api-key'] ?? '';
        const message = `credential ${String(auth)} is not valid for this agent`;
        if (rpc) return json(200, { jsonrpc: '2.0', id, error: { code: -32050, message } });
        return json(401, { error: { code: 401, status: 'UNAUTHENTICATED', message } });
      }
      case 'subscribe-405':
        if (req.method === 'POST' && url.includes(':subscribe')) {
          res.writeHead(405, { allow: 'GET', 'content-type': 'text/plain' }).end('Method Not Allowed');
          return;
        }
        sse();
        res.end(frame({ task: validTask('TASK_STATE_COMPLETED') }));
        return;
      case 'failed-status': {
        const task = {
          ...validTask('TASK_STATE_FAILED'),
          status: {
            state: 'TASK_STATE_FAILED',
            timestamp: '2026-01-01T00:00:00.000Z',
            message: { messageId: 'status-1', role: 'ROLE_AGENT', parts: [{ text: statusText }] },
          },
        };
        const streaming = rpc ? body.includes('"SendStreamingMessage"') || body.includes('"SubscribeToTask"') : url.includes(':stream') || url.includes(':subscribe');
        const send = rpc ? body.includes('"SendMessage"') : url.includes('message:send');
        if (!streaming) return json(200, wrap(send ? { task } : task));
        sse();
        res.end(frame({ task }));
        return;
      }
      case 'custom': {
        const c = custom ?? { status: 500, body: '' };
        res.writeHead(c.status, { 'content-type': c.contentType ?? 'application/json', ...(c.headers ?? {}) }).end(c.body);
        return;
      }
    }
  }

  return {
    baseUrl,
    card: initialCard,
    setMode(m, c) {
      mode = m;
      custom = c;
    },
    setCard(c) {
      card = c;
    },
    setStatusText(text) {
      statusText = text;
    },
    openConnections: () => sockets.size,
    totalConnections: () => accepted,
    async waitForNoConnections(ms = 2000) {
      const until = Date.now() + ms;
      while (sockets.size > 0) {
        if (Date.now() > until) throw new Error(`${sockets.size} connection(s) still open after ${ms} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    requests,
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
