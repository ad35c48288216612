// The API server (server/main.ts startServer) on the run's dev server, in this process or as a
// child process (node server/main.ts, exactly as an operator runs it), and a small fetch helper.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import pino from 'pino';
import { loadConfig } from '../../runtime/config';
import { startServer, type RunningServer } from '../../server/main';
import { plannerEnv } from '../harness/planner';

/** A caller's token: it sees what it started through the API or the A2A face. */
export const TOKEN = 'test-api-token-0123456789abcdef';
/** The operator's token: it sees everything, also what a suite started through its client (as the CLI does). */
export const OPERATOR_TOKEN = 'test-operator-token-0123456789abcdef';
export const OTHER_DEPLOYMENT_TOKEN = 'another-deployment-token-987654321';
const ROOT = join(__dirname, '..', '..');

/**
 * The API's environment. The suites post plans that name loopback agents of their own, which
 * PLANNER_CALLER_AGENTS=any allows; test/trust-credentials.test.ts runs with the default (registered).
 */
export function apiEnv(queue: string, extra: Record<string, string> = {}): Record<string, string> {
  return plannerEnv(queue, {
    PLANNER_API_TOKEN: TOKEN,
    PLANNER_API_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PLANNER_UI_URL: 'http://ui.test:8233',
    PLANNER_PLAN_DIR: join(ROOT, 'demo', 'plans'),
    PLANNER_CALLER_AGENTS: 'any',
    ...extra,
  });
}

export async function startApi(client: Client, queue: string, extra: Record<string, string> = {}): Promise<RunningServer> {
  return startServer({ config: loadConfig(apiEnv(queue, extra)), temporal: client, logger: pino({ level: 'silent' }), host: '127.0.0.1', port: 0 });
}

export interface Call {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** One request; `token: null` sends none. The body is JSON unless `raw` gives bytes and a content type. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; token?: string | null; headers?: Record<string, string>; raw?: string | Buffer } = {},
): Promise<Call> {
  const headers: Record<string, string> = { ...(opts.token === null ? {} : { authorization: `Bearer ${opts.token ?? TOKEN}` }) };
  let body: string | Buffer | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...opts.headers }, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export interface ChildApi {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** server/main.ts in a child process on a free port; resolves once it logs where it listens. */
export async function startChildApi(queue: string, extra: Record<string, string> = {}): Promise<ChildApi> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(ROOT, 'server', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...apiEnv(queue, { PLANNER_PORT: '0', PLANNER_LOG_LEVEL: 'info', ...extra }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the API did not start in 60 s:\n${out}`));
    }, 60_000);
    const onData = (b: Buffer): void => {
      out = (out + b.toString()).slice(-65_536);
      const m = /"url":"(http:\/\/[^"]+)".*planner API listening/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the API exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface SseEvent {
  id?: string;
  event: string;
  data: unknown;
  at: number;
}

export interface Subscription {
  status: number;
  events: SseEvent[];
  /** Resolves when the server ends the stream (or close() is called). */
  ended: Promise<void>;
  close(): void;
}

/** An EventSource-like reader over fetch: records every event with the time it arrived. */
export async function subscribe(base: string, path: string, token: string | null = TOKEN): Promise<Subscription> {
  const abort = new AbortController();
  const res = await fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}`, accept: 'text/event-stream' } : {}, signal: abort.signal });
  const events: SseEvent[] = [];
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const fields: Record<string, string> = {};
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) continue;
            const i = line.indexOf(':');
            if (i > 0) fields[line.slice(0, i)] = (fields[line.slice(0, i)] ? `${fields[line.slice(0, i)]}\n` : '') + line.slice(i + 1).trimStart();
          }
          if (fields.data === undefined) continue;
          events.push({ id: fields.id, event: fields.event ?? 'message', data: JSON.parse(fields.data) as unknown, at: Date.now() });
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  })();
  return { status: res.status, events, ended, close: () => abort.abort() };
}
