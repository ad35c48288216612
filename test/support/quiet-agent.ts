// An A2A v1.0 JSON-RPC agent that is slow or silent in exactly one way, for the waits nobody is told
// about (issue 24): a first message that gets no reply, a task stream that stalls after its
// snapshot, a first send refused with 503 and then lookups that take their time.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type QuietMode =
  /** Every A2A call is accepted and never answered. */
  | 'never-answers'
  /** The first send streams the WORKING task and ends; GetTask answers WORKING; SubscribeToTask sends its snapshot, then nothing. */
  | 'stalls-subscriptions'
  /** The first send gets 503; ListTasks answers (no task) after `slowMs`; the next send completes the task. */
  | 'slow-after-503';

export interface QuietAgent {
  baseUrl: string;
  /** A2A methods received, in order. */
  methods: string[];
  close(): Promise<void>;
}

const TIMESTAMP = '2026-12-04T00:00:00.000Z';

export async function startQuietAgent(mode: QuietMode, opts: { slowMs?: number } = {}): Promise<QuietAgent> {
  const methods: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let sends = 0;
  const task = (state: string) => ({ id: 'quiet-task-1', contextId: 'quiet-ctx-1', status: { state, timestamp: TIMESTAMP } });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/.well-known/agent-card.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
      let rpc: { id?: unknown; method?: string };
      try {
        rpc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof rpc;
      } catch {
        return void res.writeHead(400).end();
      }
      methods.push(rpc.method ?? '?');
      answer(rpc.method ?? '', rpc.id ?? null, res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = {
    name: 'quiet',
    description: `slow or silent on purpose (${mode})`,
    version: '0.0.1',
    supportedInterfaces: [{ url: `${baseUrl}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'quiet', name: 'quiet', description: 'says little', tags: [] }],
  };

  function answer(method: string, id: unknown, res: ServerResponse): void {
    const json = (result: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    const stream = (result: unknown, end: boolean): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
      if (end) res.end();
    };
    if (method === 'CancelTask') return json(task('TASK_STATE_CANCELED'));
    if (mode === 'never-answers') return; // held until the client gives up
    if (mode === 'stalls-subscriptions') {
      if (method === 'SendStreamingMessage') return stream({ task: task('TASK_STATE_WORKING') }, true);
      if (method === 'SubscribeToTask') return stream({ task: task('TASK_STATE_WORKING') }, false); // and never another byte
      return json(task('TASK_STATE_WORKING'));
    }
    // slow-after-503
    if (method === 'SendStreamingMessage' || method === 'SendMessage') {
      if (sends++ === 0) return void res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('overloaded');
      return stream({ task: task('TASK_STATE_COMPLETED') }, true);
    }
    const later = setTimeout(() => {
      timers.delete(later);
      if (method === 'ListTasks') json({ tasks: [], nextPageToken: '', pageSize: 100, totalSize: 0 });
      else json(task(sends > 1 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING'));
    }, opts.slowMs ?? 0);
    timers.add(later);
  }

  return {
    baseUrl,
    methods,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
