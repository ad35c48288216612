// The face's JSON-RPC binding for A2A v0.3 callers: the edge ahead of @a2a-js/sdk's compat layer
// (jsonRpcHandler with legacyCompat), which translates the v0.3 methods (`message/send`,
// `tasks/get`, ...) and payloads (`kind` tags, lower-case states) to v1.0 and back, so the
// planner inside speaks v1.0 only. What the SDK checks of a v0.3 request is little (an id,
// a role, an array of parts): here the params are read by zod first, so a bad field is -32602
// naming it (`params.message.parts[0].text: ...`) before anything is translated or started. The
// face's own refusals ahead of the SDK (401, body bounds, stream bound) take v0.3's error object,
// without v1.0's ErrorInfo details.
import type { RequestHandler, Response } from 'express';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { z } from 'zod';
import { parseParams } from '../params';
import { normalizeV03Header, speaksV03 } from './version';

const Metadata = z.record(z.string(), z.unknown()).optional();

/** v0.3 `Part`: `kind`-tagged text, file (bytes or uri) or data. */
const PartSchema = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('text'), text: z.string(), metadata: Metadata }),
  z.looseObject({
    kind: z.literal('file'),
    file: z.union([
      z.looseObject({ bytes: z.string(), mimeType: z.string().optional(), name: z.string().optional() }),
      z.looseObject({ uri: z.string(), mimeType: z.string().optional(), name: z.string().optional() }),
    ]),
    metadata: Metadata,
  }),
  z.looseObject({ kind: z.literal('data'), data: z.record(z.string(), z.unknown()), metadata: Metadata }),
]);

export const V03MessageSchema = z.looseObject({
  kind: z.literal('message').optional(),
  messageId: z.string().min(1),
  role: z.enum(['user', 'agent']),
  parts: z.array(PartSchema).min(1),
  contextId: z.string().min(1).optional(),
  taskId: z.string().min(1).optional(),
  metadata: Metadata,
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});

export const V03PushConfigSchema = z.looseObject({
  id: z.string().optional(),
  url: z.string().min(1),
  token: z.string().optional(),
  authentication: z.looseObject({ schemes: z.array(z.string()), credentials: z.string().optional() }).optional(),
});

export const V03SendParamsSchema = z.looseObject({
  message: V03MessageSchema,
  configuration: z
    .looseObject({
      acceptedOutputModes: z.array(z.string()).optional(),
      blocking: z.boolean().optional(),
      historyLength: z.number().int().min(0).optional(),
      pushNotificationConfig: V03PushConfigSchema.optional(),
    })
    .optional(),
  metadata: Metadata,
});

const TaskId = z.string().min(1, 'a task id is required');
const TaskIdParams = z.looseObject({ id: TaskId, metadata: Metadata });

/** The params of each v0.3 method, by its name. */
const PARAMS: Record<string, z.ZodType> = {
  'message/send': V03SendParamsSchema,
  'message/stream': V03SendParamsSchema,
  'tasks/get': z.looseObject({ id: TaskId, historyLength: z.number().int().min(0).optional(), metadata: Metadata }),
  'tasks/cancel': TaskIdParams,
  'tasks/resubscribe': TaskIdParams,
  'tasks/pushNotificationConfig/set': z.looseObject({ taskId: TaskId, pushNotificationConfig: V03PushConfigSchema }),
  'tasks/pushNotificationConfig/get': z.looseObject({ id: TaskId, pushNotificationConfigId: z.string().optional(), metadata: Metadata }),
  'tasks/pushNotificationConfig/list': TaskIdParams,
  'tasks/pushNotificationConfig/delete': z.looseObject({ id: TaskId, pushNotificationConfigId: z.string(), metadata: Metadata }),
};

/**
 * A send whose configuration does not say `blocking` blocks, as the v0.3 SDKs' servers have it
 * (a2a-python: "Default to blocking behavior"; a2a-js 0.3: `blocking !== false`). The SDK's compat
 * translation returns at once then (only a send without any configuration blocks), so the face
 * says it in the request's params (checked above) before the SDK reads them.
 */
function blockByDefault(params: unknown): void {
  const configuration = (params as { configuration?: { blocking?: boolean } } | undefined)?.configuration;
  if (configuration && configuration.blocking === undefined) configuration.blocking = true;
}

/**
 * v0.3's answer to a card that says `supportsAuthenticatedExtendedCard: false`:
 * AuthenticatedExtendedCardNotConfiguredError (the SDK would pass on v1.0's -32004).
 */
export const EXTENDED_CARD_REFUSAL = 'Authenticated Extended Card is not configured: this agent has none (supportsAuthenticatedExtendedCard is false)';

/** A v0.3 JSON-RPC error response: `{code, message}` (v0.3 has no ErrorInfo details). */
export function sendV03JsonRpcError(res: Response, status: number, id: unknown, code: number, message: string): void {
  const rpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
  res.status(status).json({ jsonrpc: '2.0', id: rpcId, error: { code, message } });
}

/**
 * For a v0.3 caller: its A2A-Version made the one spelling the SDK routes ("0.3"), and the params
 * of a v0.3 method checked (-32602 naming the field). Anything else passes on: the SDK answers an
 * unknown method with -32601 and a v1.0 caller is not looked at.
 */
export function v03JsonRpcEdge(): RequestHandler {
  return (req, res, next) => {
    if (!speaksV03(req)) return next();
    normalizeV03Header(req);
    const body = req.body as { method?: unknown; params?: unknown; id?: unknown } | undefined;
    if (body?.method === 'agent/getAuthenticatedExtendedCard') return sendV03JsonRpcError(res, 200, body.id, -32007, EXTENDED_CARD_REFUSAL);
    // Own keys only: a method named like an Object.prototype member (valueOf) is no v0.3 method.
    const schema = typeof body?.method === 'string' && Object.hasOwn(PARAMS, body.method) ? PARAMS[body.method] : undefined;
    if (!schema) return next();
    try {
      parseParams(schema, body!.params, 'params');
    } catch (err) {
      if (!(err instanceof RequestMalformedError)) throw err;
      return sendV03JsonRpcError(res, 200, body!.id, -32602, err.message);
    }
    blockByDefault(body!.params);
    next();
  };
}
