import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Message, StreamResponse, TaskState } from '../../a2a';

export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

export function textOf(m: Message | undefined): string {
  return (m?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

/** The task state a frame carries, if any. */
export function stateOf(f: StreamResponse): TaskState | undefined {
  if ('task' in f) return f.task.status.state;
  if ('statusUpdate' in f) return f.statusUpdate.status.state;
  return undefined;
}

export function kindOf(f: StreamResponse): 'task' | 'message' | 'statusUpdate' | 'artifactUpdate' {
  if ('task' in f) return 'task';
  if ('message' in f) return 'message';
  if ('statusUpdate' in f) return 'statusUpdate';
  return 'artifactUpdate';
}

/** Runs `fn` and returns what it threw (fails the test if it did not throw). */
export async function thrown(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof Error) return e;
    throw new Error(`threw a non-Error: ${String(e)}`);
  }
  throw new Error('expected a rejection, but the call succeeded');
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

export interface WebhookReceiver {
  url: string;
  received: { headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/** A push-notification webhook on loopback that records every POST and answers 200. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: WebhookReceiver['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export async function eventually(check: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
