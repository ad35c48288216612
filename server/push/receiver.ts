// The webhook that agents push task events to, served by `planner serve` beside the API. It checks
// the per-task token (an HMAC the receiver recomputes: no stored state, any replica can check it),
// parses the frame with the same schema as the stream reader (or a v0.3 agent's Task, lifted to one), and answers 2xx only once the event is
// recorded in the workflow's history (as an `observe` signal). Repeated deliveries are harmless:
// the workflow keeps the newest status by timestamp. Its replies keep the receiver's own wire shape,
// {error: "..."}, which agents' logs already show; it does not take the API's bearer token.
import type { IncomingMessage } from 'node:http';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { Router, type Response } from 'express';
import type { Logger } from 'pino';
import { describeProblem, parsePushNotification } from '../../a2a';
import { observeFrame } from '../../activities/observe';
import { tokenMatches } from '../../activities/push-token';
import { observeSignal } from '../../workflows/delegated-task/messages';

export const PUSH_MAX_BODY_BYTES = 1024 * 1024;
/** The path registered with agents (activities/push-token.ts pushUrl). */
export const PUSH_PATH = '/a2a/push/:workflowId/:taskId';

export interface PushOptions {
  temporal: Client;
  secret: string;
  logger: Logger;
}

export function pushRouter(opts: PushOptions): Router {
  const router = Router();
  router.post(PUSH_PATH, async (req, res) => {
    const { workflowId, taskId } = req.params as { workflowId: string; taskId: string };
    const presented = tokenOf(req);
    if (!presented || !tokenMatches(opts.secret, workflowId, taskId, presented)) {
      return reply(res, 401, 'missing or wrong notification token');
    }
    const body = await readBody(req);
    if (body === undefined) return reply(res, 413, `body over ${PUSH_MAX_BODY_BYTES} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return reply(res, 400, 'body is not JSON');
    }
    // A v1.0 StreamResponse, or the Task a v0.3 agent posts (a2a/compat/v0_3/push.ts).
    const parsed = parsePushNotification(json);
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
  });
  router.all(PUSH_PATH, (_req, res) => reply(res.set('Allow', 'POST'), 405, 'use POST'));
  return router;
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
    if (size > PUSH_MAX_BODY_BYTES) return undefined;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function reply(res: Response, status: number, error?: string): void {
  if (error === undefined) {
    res.status(status).end();
    return;
  }
  res.status(status).json({ error });
}
