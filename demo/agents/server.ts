/** Serves one SDK-built agent on loopback over JSON-RPC and HTTP+JSON, with recording. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { RestTaskNotFoundError, toRestErrorBody } from '@a2a-js/sdk/errors';
import { A2A_CONTENT_TYPE, AGENT_CARD_PATH, taskStateToJSON, type AgentSkill } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  ServerCallContext,
  type AgentExecutor,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { buildCard, JSONRPC_PATH, REST_PATH } from './card';
import { RecordingPushSender } from './push';
import { createLog, recordA2A, type AgentLog, type Binding } from './recorder';
import { dropFirstStreams } from './stream-tap';

export interface AgentHandle {
  name: string;
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  port: number;
  /** The card JSON as served at /.well-known/agent-card.json. */
  card: unknown;
  log: AgentLog;
  /** POST {baseUrl}/approve/{taskId} over real HTTP; throws on a non-2xx answer. */
  approve(taskId: string): Promise<void>;
  /** The state in the agent's own task store, e.g. 'TASK_STATE_CANCELED'. */
  taskState(taskId: string): Promise<string | undefined>;
  /** Closes the server and every open socket (SSE streams included). Idempotent. */
  close(): Promise<void>;
}

export interface AgentOptions {
  /** Default 0 (ephemeral). */
  port?: number;
  /** Default true; false makes the card say so and the SDK refuse streaming calls. */
  streaming?: boolean;
  /** Default false; true makes the card say so and delivers to registered webhooks. */
  pushNotifications?: boolean;
  /** Default 0: cut the first N SSE responses right after their first frame while the task still runs. */
  dropStreams?: number;
  /** Which interface is listed first in supportedInterfaces (default JSONRPC). */
  preferredBinding?: Binding;
  /**
   * Refuse every SubscribeToTask with TASK_NOT_FOUND ("no active execution"), as a2a-go v2 does for
   * a task whose execution has finished or that this process is not running (-32001 / HTTP 404).
   */
  refuseSubscriptions?: boolean;
}

/** What a concrete agent plugs into the server. */
export interface AgentBehaviour {
  executor: AgentExecutor;
  /** Out-of-band approval; false when nothing on that task is waiting for one. */
  approve?(taskId: string): boolean;
  /** Releases anything the executor is waiting on, so no work outlives the server. */
  shutdown(): void;
}

export interface AgentSpec {
  name: string;
  description: string;
  skills: AgentSkill[];
  createBehaviour(env: { baseUrl: string }): AgentBehaviour;
}

/** Middleware that answers SubscribeToTask with TASK_NOT_FOUND on each binding, when asked to. */
function refuseSubscriptions(on: boolean): { jsonrpc: RequestHandler; rest: RequestHandler } {
  const message = 'no active execution';
  return {
    jsonrpc: (req, res, next) => {
      const body = req.body as { method?: unknown; id?: unknown } | undefined;
      if (!on || body?.method !== 'SubscribeToTask') return next();
      res.status(200).json({ jsonrpc: '2.0', id: body.id ?? null, error: { code: -32001, message } });
    },
    rest: (req, res, next) => {
      if (!on || !/\/tasks\/[^/]+:subscribe$/.test(req.path)) return next();
      res.setHeader('Content-Type', A2A_CONTENT_TYPE);
      res.status(404).json(toRestErrorBody(new RestTaskNotFoundError({ message }), 404));
    },
  };
}

/** All callers are unauthenticated; one owner keeps out-of-band lookups (taskState) in the same scope. */
const singleOwner = (): string => 'anonymous';

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startAgent(spec: AgentSpec, opts: AgentOptions = {}): Promise<AgentHandle> {
  const app = express();
  const server = createServer(app);
  // The card has to name the port, so listen before building anything; nobody knows the port yet.
  await listen(server, opts.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;

  const log = createLog();
  const behaviour = spec.createBehaviour({ baseUrl });
  const card = buildCard({
    name: spec.name,
    description: spec.description,
    skills: spec.skills,
    baseUrl,
    streaming: opts.streaming ?? true,
    pushNotifications: opts.pushNotifications ?? false,
    preferredBinding: opts.preferredBinding ?? 'JSONRPC',
  });
  const taskStore = new InMemoryTaskStore(singleOwner);
  const pushStore = new InMemoryPushNotificationStore(singleOwner);
  const pushSender = new RecordingPushSender(pushStore, log.pushDeliveries);
  // The handler only uses the push store and sender when the card enables push notifications.
  const executor: AgentExecutor = {
    execute: (ctx, bus) => {
      log.tasks.push({ messageId: ctx.userMessage.messageId, taskId: ctx.taskId });
      return behaviour.executor.execute(ctx, bus);
    },
    cancelTask: (taskId, bus) => behaviour.executor.cancelTask(taskId, bus),
  };
  const handler = new DefaultRequestHandler(card, taskStore, executor, undefined, pushStore, pushSender);
  const streamPolicy = dropFirstStreams(opts.dropStreams ?? 0);

  app.use((req, _res, next) => {
    log.received.push({ at: Date.now(), path: req.originalUrl, headers: { ...req.headers } });
    next();
  });
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  const refuse = refuseSubscriptions(opts.refuseSubscriptions ?? false);
  app.use(
    JSONRPC_PATH,
    ...recordA2A('JSONRPC', log, streamPolicy),
    refuse.jsonrpc,
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  app.use(
    REST_PATH,
    ...recordA2A('HTTP+JSON', log, streamPolicy),
    refuse.rest,
    restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  // The page an operator opens from the approval URL: one button that POSTs the approval.
  app.get('/approve/:taskId', (req, res) => {
    const id = req.params.taskId.replace(/[^A-Za-z0-9._-]/g, '');
    res.type('html').send(
      `<!doctype html><title>Approve ${id}</title><h1>${spec.name}: approve task ${id}?</h1>` +
        `<form method="post"><button type="submit">Approve</button></form>`,
    );
  });
  app.post('/approve/:taskId', (req, res) => {
    const taskId = req.params.taskId;
    if (!behaviour.approve?.(taskId)) {
      res.status(404).json({ approved: false, error: `No approval is pending for task ${taskId}` });
      return;
    }
    log.approvals.push({ taskId, at: Date.now() });
    res.status(200).json({ approved: true });
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      behaviour.shutdown();
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      // server.close() alone would wait for open SSE streams and keep-alive sockets.
      server.closeAllConnections();
      await closed;
      await pushSender.close();
    })());

  let servedCard: unknown;
  try {
    const response = await fetch(`${baseUrl}/${AGENT_CARD_PATH}`);
    servedCard = await response.json();
  } catch (error) {
    await close();
    throw error;
  }

  return {
    name: spec.name,
    baseUrl,
    port,
    card: servedCard,
    log,
    async approve(taskId) {
      const response = await fetch(`${baseUrl}/approve/${encodeURIComponent(taskId)}`, { method: 'POST' });
      const body = await response.text();
      if (!response.ok) throw new Error(`approve(${taskId}) failed: HTTP ${response.status} ${body}`);
    },
    async taskState(taskId) {
      const task = await taskStore.load(taskId, new ServerCallContext());
      return task?.status ? taskStateToJSON(task.status.state) : undefined;
    },
    close,
  };
}
