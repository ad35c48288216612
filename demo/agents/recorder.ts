/**
 * Records what arrives on the wire, before the SDK sees it, so tests can
 * assert on what a client really sent (not on what the SDK made of it).
 */
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { A2A_CONTENT_TYPE } from '@a2a-js/sdk';
import { RequestMalformedError, toRestErrorBody } from '@a2a-js/sdk/errors';
import { field, stringField } from './json';
import { onFirstSseFrame, type StreamPolicy } from './stream-tap';

export type Binding = 'JSONRPC' | 'HTTP+JSON';

export interface RecordedRequest {
  at: number;
  binding: Binding;
  /** A2A method name (SendMessage, GetTask, ...); '' when the body could not be read. */
  method: string;
  taskId?: string;
  httpMethod: string;
  path: string;
}

export interface RecordedMessage {
  at: number;
  messageId: string;
  taskId?: string;
  contextId?: string;
  role: string;
  /** Text parts joined by '\n'. */
  text: string;
  /** The message JSON exactly as received. */
  raw: unknown;
}

export interface RecordedSubscription {
  taskId: string;
  /** Request arrival. */
  at: number;
  /** When the first SSE frame was written to the socket. */
  firstFrameAt?: number;
  /** When the stream's connection closed (either side). */
  closedAt?: number;
}

export interface AgentLog {
  requests: RecordedRequest[];
  userMessages: RecordedMessage[];
  subscriptions: RecordedSubscription[];
  approvals: { taskId: string; at: number }[];
  pushDeliveries: { taskId: string; at: number; url: string; status?: number }[];
  /** The task the agent made of each message its executor ran: how a test finds the agent's task for a first message. */
  tasks: { messageId: string; taskId: string }[];
  /** Every HTTP request's path and headers, the card's included: what a client really sent (credentials, in tests). */
  received: { at: number; path: string; headers: Record<string, string | string[] | undefined> }[];
}

export function createLog(): AgentLog {
  return { requests: [], userMessages: [], subscriptions: [], approvals: [], pushDeliveries: [], tasks: [], received: [] };
}

interface RequestInfo {
  method: string;
  taskId?: string;
  message?: unknown;
}

function describeJsonRpc(body: unknown): RequestInfo {
  const params = field(body, 'params');
  return {
    method: stringField(body, 'method') ?? '',
    taskId: stringField(params, 'id') ?? stringField(params, 'taskId') ?? stringField(params, 'message', 'taskId'),
    message: field(params, 'message'),
  };
}

const REST_ROUTES: { httpMethods: string[]; pattern: RegExp; method: string }[] = [
  { httpMethods: ['POST'], pattern: /^\/message:send$/, method: 'SendMessage' },
  { httpMethods: ['POST'], pattern: /^\/message:stream$/, method: 'SendStreamingMessage' },
  { httpMethods: ['GET'], pattern: /^\/tasks$/, method: 'ListTasks' },
  { httpMethods: ['GET'], pattern: /^\/tasks\/([^/:]+)$/, method: 'GetTask' },
  { httpMethods: ['POST'], pattern: /^\/tasks\/([^/:]+):cancel$/, method: 'CancelTask' },
  { httpMethods: ['GET', 'POST'], pattern: /^\/tasks\/([^/:]+):subscribe$/, method: 'SubscribeToTask' },
  { httpMethods: ['POST'], pattern: /^\/tasks\/([^/]+)\/pushNotificationConfigs$/, method: 'CreateTaskPushNotificationConfig' },
  { httpMethods: ['GET'], pattern: /^\/tasks\/([^/]+)\/pushNotificationConfigs$/, method: 'ListTaskPushNotificationConfigs' },
  { httpMethods: ['GET'], pattern: /^\/tasks\/([^/]+)\/pushNotificationConfigs\/[^/]+$/, method: 'GetTaskPushNotificationConfig' },
  { httpMethods: ['DELETE'], pattern: /^\/tasks\/([^/]+)\/pushNotificationConfigs\/[^/]+$/, method: 'DeleteTaskPushNotificationConfig' },
  { httpMethods: ['GET'], pattern: /^\/extendedAgentCard$/, method: 'GetExtendedAgentCard' },
];

function matchRestRoute(httpMethod: string, path: string): RequestInfo | undefined {
  for (const route of REST_ROUTES) {
    if (!route.httpMethods.includes(httpMethod)) continue;
    const match = route.pattern.exec(path);
    if (!match) continue;
    const rawId = match[1];
    return rawId === undefined ? { method: route.method } : { method: route.method, taskId: decodeURIComponent(rawId) };
  }
  return undefined;
}

function describeRest(httpMethod: string, path: string, body: unknown): RequestInfo {
  // Every REST route also exists under a leading /{tenant} segment.
  const route = matchRestRoute(httpMethod, path) ?? matchRestRoute(httpMethod, path.replace(/^\/[^/]+/, ''));
  if (!route) return { method: '' };
  const message = route.method === 'SendMessage' || route.method === 'SendStreamingMessage' ? field(body, 'message') : undefined;
  return { ...route, taskId: route.taskId ?? stringField(message, 'taskId'), message };
}

function toRecordedMessage(at: number, raw: unknown): RecordedMessage {
  const parts = field(raw, 'parts');
  const texts = Array.isArray(parts) ? parts.flatMap((part: unknown) => stringField(part, 'text') ?? []) : [];
  return {
    at,
    messageId: stringField(raw, 'messageId') ?? '',
    taskId: stringField(raw, 'taskId'),
    contextId: stringField(raw, 'contextId'),
    role: stringField(raw, 'role') ?? '',
    text: texts.join('\n'),
    raw,
  };
}

const arrivals = new WeakMap<Request, number>();

function recordRequest(binding: Binding, log: AgentLog, policy: StreamPolicy, req: Request, res: Response): void {
  const at = arrivals.get(req) ?? Date.now();
  const body: unknown = req.body;
  const info = binding === 'JSONRPC' ? describeJsonRpc(body) : describeRest(req.method, req.path, body);
  log.requests.push({
    at,
    binding,
    method: info.method,
    taskId: info.taskId,
    httpMethod: req.method,
    path: req.originalUrl.split('?')[0] ?? req.originalUrl,
  });
  if (info.message !== undefined && (info.method === 'SendMessage' || info.method === 'SendStreamingMessage')) {
    log.userMessages.push(toRecordedMessage(at, info.message));
  }
  const subscription: RecordedSubscription | undefined =
    info.method === 'SubscribeToTask' && info.taskId !== undefined ? { taskId: info.taskId, at } : undefined;
  if (subscription) {
    log.subscriptions.push(subscription);
    res.on('close', () => (subscription.closedAt = Date.now()));
  }
  onFirstSseFrame(res, (frame) => {
    if (subscription) subscription.firstFrameAt = Date.now();
    return policy.cutAfterFirstFrame(frame);
  });
}

/**
 * Middleware to mount in front of an SDK transport handler.
 *
 * It parses the body with the same express.json() settings the SDK uses; the
 * SDK's own parser then sees a finished request and keeps our req.body. A
 * parse failure is answered here exactly as the SDK would answer it, because
 * the SDK's error handler lives inside its router, which Express skips once
 * an error is in flight.
 */
export function recordA2A(
  binding: Binding,
  log: AgentLog,
  policy: StreamPolicy,
): (RequestHandler | ErrorRequestHandler)[] {
  const stampArrival: RequestHandler = (req, _res, next) => {
    arrivals.set(req, Date.now());
    next();
  };
  const parse =
    binding === 'JSONRPC'
      ? express.json()
      : express.json({ type: ['application/json', A2A_CONTENT_TYPE], strict: false });
  const onParseError = (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (!(err instanceof SyntaxError && 'body' in err)) {
      next(err);
      return;
    }
    recordRequest(binding, log, policy, req, res);
    if (binding === 'JSONRPC') {
      res.status(200).json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload.' } });
    } else {
      res.setHeader('Content-Type', A2A_CONTENT_TYPE);
      res.status(400).json(toRestErrorBody(new RequestMalformedError('Invalid JSON payload.'), 400));
    }
  };
  const record: RequestHandler = (req, res, next) => {
    recordRequest(binding, log, policy, req, res);
    next();
  };
  return [stampArrival, parse, onParseError, record];
}
