// The bot: the planner's alert webhook on loopback, playing the human and the operator. Each alert
// is recorded (with its Idempotency-Key, so redeliveries can be told apart) and handed to a handler
// that the benchmark or the fault in progress sets: answer, approve, count. The bench and the chaos
// suite both run it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Alert {
  at: number;
  /** The delivery's Idempotency-Key ('' when none came). */
  idempotencyKey: string;
  kind: string;
  workflowId: string;
  planId?: string;
  agent: string;
  taskId: string;
  text: string;
}

export interface Bot {
  url: string;
  alerts: Alert[];
  /** Called for every delivery as it arrives (redeliveries included); replace it per benchmark or fault. */
  onAlert: (a: Alert) => void;
  close(): Promise<void>;
}

export async function startBot(): Promise<Bot> {
  const bot: Bot = { url: '', alerts: [], onAlert: () => undefined, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Omit<Alert, 'at' | 'idempotencyKey'>;
      const key = req.headers['idempotency-key'];
      const alert: Alert = { at: Date.now(), idempotencyKey: typeof key === 'string' ? key : '', ...body };
      bot.alerts.push(alert);
      bot.onAlert(alert);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  bot.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`;
  bot.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return bot;
}
