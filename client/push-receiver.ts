// The webhook that agents push task events to. It checks the per-task token, parses the frame with
// the same schema as the stream reader, and answers 2xx only once the event is recorded in the
// workflow's history (as an `observe` signal). Repeated deliveries are harmless: the workflow keeps
// the newest status by timestamp.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { StreamResponseSchema, describeProblem, parseWith } from '../a2a';
import { observeFrame } from '../activities/observe';
import { tokenMatches } from '../activities/push-token';
import { observeSignal } from '../workflows/delegated-task-messages';

const MAX_BODY_BYTES = 1024 * 1024;
const PATH = /^\/a2a\/push\/([^/]+)\/([^/]+)$/;

export interface PushReceiver {
  url: string;
  close(): Promise<void>;
}

export async function startPushReceiver(opts: {
  temporal: Client;
  secret: string;
  host?: string;
  port?: number;
  logger: Logger;
}): Promise<PushReceiver> {
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.logger.error({ err }, 'push receiver failed');
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const m = PATH.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (!m) return reply(res, 404, 'no such endpoint');
    if (req.method !== 'POST') return reply(res, 405, 'use POST');
    const workflowId = decodeURIComponent(m[1]!);
    const taskId = decodeURIComponent(m[2]!);
    const presented = tokenOf(req);
    if (!presented || !tokenMatches(opts.secret, workflowId, taskId, presented)) {
      return reply(res, 401, 'missing or wrong notification token');
    }
    const body = await readBody(req);
    if (body === undefined) return reply(res, 413, `body over ${MAX_BODY_BYTES} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return reply(res, 400, 'body is not JSON');
    }
    const parsed = parseWith(StreamResponseSchema, json);
    if (!parsed.ok) return reply(res, 400, describeProblem(parsed.problem, 'StreamResponse'));
    const observation = observeFrame(parsed.value, 'push');
    if (!observation) return reply(res, 204);
    if (observation.taskId !== taskId) return reply(res, 400, `frame is about task ${observation.taskId}, not ${taskId}`);
    try {
      await opts.temporal.workflow.getHandle(workflowId).signal(observeSignal, observation);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return reply(res, 404, 'no such delegated task');
      throw err;
    }
    reply(res, 204);
  }

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function tokenOf(req: IncomingMessage): string | undefined {
  const header = req.headers['x-a2a-notification-token'];
  if (typeof header === 'string' && header) return header;
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function reply(res: ServerResponse, status: number, error?: string): void {
  if (error === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
}
