// Compatibility path: the push webhook now lives in `planner serve` (server/push/receiver.ts).
// startPushReceiver runs that same router on its own, for `planner dev` (cli/embedded-planner.ts),
// scripts/record-histories.ts and the push suite, until they run the API server instead.
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import express from 'express';
import type { Logger } from 'pino';
import { pushRouter } from './receiver';

export interface PushReceiver {
  url: string;
  close(): Promise<void>;
}

export async function startPushReceiver(opts: { temporal: Client; secret: string; host?: string; port?: number; logger: Logger }): Promise<PushReceiver> {
  const app = express();
  app.disable('x-powered-by');
  app.use(pushRouter({ temporal: opts.temporal, secret: opts.secret, logger: opts.logger }));
  app.use((_req, res) => void res.status(404).json({ error: 'no such endpoint' }));
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    opts.logger.error({ err }, 'push receiver failed');
    if (!res.headersSent) res.status(500).json({ error: 'internal error' });
  });
  const server = await new Promise<import('node:http').Server>((resolve, reject) => {
    const s = app.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
