// A real HTTP endpoint for the `webhook` alert sink, recording what arrives and when.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedAlert {
  at: number;
  idempotencyKey?: string;
  body: { kind: string; workflowId: string; planId?: string; agent: string; taskId: string; text: string; uiUrl?: string };
}

export interface AlertSink {
  url: string;
  alerts: ReceivedAlert[];
  forWorkflow(workflowId: string): ReceivedAlert[];
  /** The first alert for this workflow, as soon as it arrives (no polling). */
  first(workflowId: string): Promise<ReceivedAlert>;
  /** Answers the next `count` posts 503, recording them in `refused` instead. */
  refuseNext(count: number): void;
  refused: ReceivedAlert[];
  close(): Promise<void>;
}

export async function startAlertSink(): Promise<AlertSink> {
  const alerts: ReceivedAlert[] = [];
  const refused: ReceivedAlert[] = [];
  let refusing = 0;
  const waiting = new Map<string, (alert: ReceivedAlert) => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      const alert = {
        at: Date.now(),
        idempotencyKey: typeof key === 'string' ? key : undefined,
        body: JSON.parse(Buffer.concat(chunks).toString()) as ReceivedAlert['body'],
      };
      if (refusing > 0) {
        refusing--;
        refused.push(alert);
        res.writeHead(503).end();
        return;
      }
      alerts.push(alert);
      res.writeHead(204).end();
      waiting.get(alert.body.workflowId)?.(alert);
      waiting.delete(alert.body.workflowId);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    alerts,
    forWorkflow: (id) => alerts.filter((a) => a.body.workflowId === id),
    first: (id) => {
      const seen = alerts.find((a) => a.body.workflowId === id);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiting.set(id, resolve));
    },
    refuseNext: (count) => {
      refusing = count;
    },
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
