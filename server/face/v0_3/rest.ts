// The face's HTTP+JSON binding for A2A v0.3 callers: the edge ahead of @a2a-js/sdk's compat
// layer (restHandler with legacyCompat), which serves the v0.3 paths under the binding's URL
// (`/v1/message:send`, `/v1/message:stream`, `/v1/tasks/{id}`, `/v1/tasks/{id}:cancel`,
// `/v1/tasks/{id}:subscribe`, `/v1/tasks/{id}/pushNotificationConfigs[/{configId}]`) in v0.3's
// protobuf JSON (`content` parts, `ROLE_USER`, `TASK_STATE_*`) and translates them to v1.0. The
// SDK's codecs read a field of the wrong type as absent; here the bodies are read by zod first, so
// a bad field is HTTP 400 naming it. Errors for a v0.3 caller are v0.3's bare `{code, message}`
// with a JSON-RPC code, as the SDK answers its own (no google.rpc.Status, no ErrorInfo).
import type { RequestHandler, Response } from 'express';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { z } from 'zod';
import { parseParams } from '../params';
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

const CreatePushConfigSchema = z.looseObject({ name: z.string().optional(), pushNotificationConfig: PushConfigSchema });

/** The bodies checked, by the path they are posted to (under the binding's URL). */
const BODIES: Array<[RegExp, z.ZodType]> = [
  [/^\/v1\/message:(send|stream)$/, SendSchema],
  [/^\/v1\/tasks\/[^/]+\/pushNotificationConfigs$/, CreatePushConfigSchema],
];

/** A v0.3 HTTP+JSON error: the bare `{code, message}` with a JSON-RPC code, as `application/json`. */
export function sendV03RestError(res: Response, status: number, code: number, message: string): void {
  res.status(status).type('application/json').json({ code, message });
}

/**
 * For a v0.3 caller: a path outside v0.3's `/v1/...` refused (the SDK would serve a v1.0 path to
 * it in v1.0, since the card lists a 0.3 interface of the binding; a request without the header is
 * a v0.3 one, answered in v0.3 or not at all), and the body of a send or a push-config create
 * checked (HTTP 400, -32602 naming the field).
 */
export function v03RestEdge(): RequestHandler {
  return (req, res, next) => {
    if (!speaksV03(req)) return next();
    if (!req.path.startsWith('/v1/')) {
      return sendV03RestError(res, 404, -32601, `Method not found: ${req.method} ${req.path} is not an A2A v0.3 HTTP+JSON path (v0.3's are under /v1/; the v1.0 paths need the header A2A-Version: 1.0)`);
    }
    if (req.method !== 'POST') return next();
    const schema = BODIES.find(([path]) => path.test(req.path))?.[1];
    if (!schema) return next();
    try {
      parseParams(schema, req.body);
    } catch (err) {
      if (!(err instanceof RequestMalformedError)) throw err;
      return sendV03RestError(res, 400, -32602, err.message);
    }
    next();
  };
}
