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
  /** Answers this workflow's next post 503, recording it in `refused` instead. */
  refuseNext(workflowId: string): void;
  refused: ReceivedAlert[];
  close(): Promise<void>;
}

export async function startAlertSink(): Promise<AlertSink> {
  const alerts: ReceivedAlert[] = [];
  const refused: ReceivedAlert[] = [];
  const refusing = new Set<string>();
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
      if (refusing.delete(alert.body.workflowId)) {
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
    refuseNext: (id) => {
      refusing.add(id);
    },
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
