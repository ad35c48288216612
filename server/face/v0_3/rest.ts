// The face's HTTP+JSON binding for A2A v0.3 callers: the edge ahead of @a2a-js/sdk's compat
// layer (restHandler with legacyCompat), which serves the v0.3 paths under the binding's URL
// (`/v1/message:send`, `/v1/message:stream`, `/v1/tasks/{id}`, `/v1/tasks/{id}:cancel`,
// `/v1/tasks/{id}:subscribe`, `/v1/tasks/{id}/pushNotificationConfigs[/{configId}]`) in v0.3's
// protobuf JSON (`content` parts, `ROLE_USER`, `TASK_STATE_*`) and translates them to v1.0. The
// SDK's codecs read a field of the wrong type as absent; here the bodies are read by zod first, so
// a bad field is HTTP 400 naming it, and a push-config create is put in the form the SDK reads
// (pushConfigBody). Errors for a v0.3 caller are v0.3's bare `{code, message}`
// with a JSON-RPC code, as the SDK answers its own (no google.rpc.Status, no ErrorInfo).
import type { RequestHandler, Response } from 'express';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { z } from 'zod';
import { parseParams } from '../params';
import { EXTENDED_CARD_REFUSAL } from './jsonrpc';
import { speaksV03 } from './version';

const Metadata = z.record(z.string(), z.unknown()).optional();

/** v0.3 protobuf `Part`: exactly one of text, file, data. */
const PartSchema = z.union([
  z.looseObject({ text: z.string(), metadata: Metadata }),
  z.looseObject({ file: z.record(z.string(), z.unknown()), metadata: Metadata }),
  z.looseObject({ data: z.record(z.string(), z.unknown()), metadata: Metadata }),
]);

const MessageSchema = z.looseObject({
  messageId: z.string().min(1),
  role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
  content: z.array(PartSchema).min(1),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  metadata: Metadata,
  extensions: z.array(z.string()).optional(),
});

const PushConfigSchema = z.looseObject({
  id: z.string().optional(),
  url: z.string().min(1),
  token: z.string().optional(),
  authentication: z.looseObject({ schemes: z.array(z.string()), credentials: z.string().optional() }).optional(),
});

const SendSchema = z.looseObject({
  message: MessageSchema,
  configuration: z
    .looseObject({
      acceptedOutputModes: z.array(z.string()).optional(),
      blocking: z.boolean().optional(),
      historyLength: z.number().int().min(0).optional(),
      pushNotification: PushConfigSchema.optional(),
    })
    .optional(),
  metadata: Metadata,
});

/** v0.3's `TaskPushNotificationConfig`, the body @a2a-js/sdk's clients post and its compat layer reads. */
const PushConfigBodySchema = z.looseObject({ name: z.string().optional(), pushNotificationConfig: PushConfigSchema });
/** v0.3's `CreateTaskPushNotificationConfigRequest`, the body the Python a2a-sdk 0.3 client posts. */
const CreatePushConfigRequestSchema = z.looseObject({ parent: z.string().optional(), configId: z.string().optional(), config: PushConfigBodySchema });
const CreatePushConfigSchema = z.union([PushConfigBodySchema, CreatePushConfigRequestSchema]);

const PUSH_CONFIGS_PATH = /^\/v1\/tasks\/([^/]+)\/pushNotificationConfigs$/;
const SEND_PATH = /^\/v1\/message:(send|stream)$/;

/**
 * A push-config create in the one form the SDK reads, `{name, pushNotificationConfig}`, its task
 * the path's: the SDK takes the task from `name` alone (a body without it is refused for want of
 * a task id the path gives) and does not read the Python client's request form (`config` inside).
 * Undefined when the body names another task than the path.
 */
function pushConfigBody(taskId: string, body: z.output<typeof CreatePushConfigSchema>): object | undefined {
  const request = 'config' in body ? (body as z.output<typeof CreatePushConfigRequestSchema>) : undefined;
  const form: z.output<typeof PushConfigBodySchema> = request ? request.config : (body as z.output<typeof PushConfigBodySchema>);
  const id = form.pushNotificationConfig.id || request?.configId || undefined;
  const named = [form.name, request?.parent].filter((n): n is string => !!n);
  if (named.some((n) => /^tasks\/([^/]+)/.exec(n)?.[1] !== taskId)) return undefined;
  return { name: `tasks/${taskId}/pushNotificationConfigs/${id ?? ''}`, pushNotificationConfig: { ...form.pushNotificationConfig, ...(id ? { id } : {}) } };
}

/** A v0.3 HTTP+JSON error: the bare `{code, message}` with a JSON-RPC code, as `application/json`. */
export function sendV03RestError(res: Response, status: number, code: number, message: string): void {
  res.status(status).type('application/json').json({ code, message });
}

/**
 * For a v0.3 caller: a path outside v0.3's `/v1/...` refused (the SDK would serve a v1.0 path to
 * it in v1.0, since the card lists a 0.3 interface of the binding; a request without the header is
 * a v0.3 one, answered in v0.3 or not at all), the extended card refused as v0.3 does (-32007),
 * and the body of a send or a push-config create checked (HTTP 400, -32602 naming the field).
 */
export function v03RestEdge(): RequestHandler {
  return (req, res, next) => {
    if (!speaksV03(req)) return next();
    if (!req.path.startsWith('/v1/')) {
      return sendV03RestError(res, 404, -32601, `Method not found: ${req.method} ${req.path} is not an A2A v0.3 HTTP+JSON path (v0.3's are under /v1/; the v1.0 paths need the header A2A-Version: 1.0)`);
    }
    if (req.method === 'GET' && req.path === '/v1/card') return sendV03RestError(res, 400, -32007, EXTENDED_CARD_REFUSAL);
    if (req.method !== 'POST') return next();
    const pushTask = PUSH_CONFIGS_PATH.exec(req.path)?.[1];
    if (!SEND_PATH.test(req.path) && pushTask === undefined) return next();
    try {
      if (pushTask === undefined) {
        parseParams(SendSchema, req.body);
        return next();
      }
      const taskId = decodeURIComponent(pushTask);
      const body = pushConfigBody(taskId, parseParams(CreatePushConfigSchema, req.body));
      if (!body) return sendV03RestError(res, 400, -32602, `Invalid params: name: the body names another task than the path's (${taskId})`);
      req.body = body;
    } catch (err) {
      if (!(err instanceof RequestMalformedError)) throw err;
      return sendV03RestError(res, 400, -32602, err.message);
    }
    next();
  };
}
