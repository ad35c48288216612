// GET /v1/inbox: every wait of the caller's own (all of them for an operator), across plans and
// single delegated tasks, oldest first; the owner filter is part of the visibility query. The page token
// is a cursor (the last entry's wait time and workflow id), not an offset, so any replica can serve
// the next page and a wait that appears or ends meanwhile does not shift the pages.
import { Router } from 'express';
import { z } from 'zod';
import { listInbox, type InboxEntry } from '../../client/inbox';
import { planIdProblem } from '../../client/plan';
import { callerOfResponse } from '../auth';
import type { ApiContext } from '../context';
import { ApiError, parseOr400 } from '../errors';
import { ownedClause } from './ownership';
import { InboxQuerySchema, type InboxPageSchema } from './schemas';

const Cursor = z.tuple([z.number().int(), z.string().min(1)]);

export function encodeCursor(e: Pick<InboxEntry, 'waitingSince' | 'workflowId'>): string {
  return Buffer.from(JSON.stringify([e.waitingSince.getTime(), e.workflowId])).toString('base64url');
}

export function decodeCursor(token: string): [number, string] {
  try {
    const parsed = Cursor.safeParse(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // falls through to the 400
  }
  throw new ApiError(400, 'invalid_request', 'invalid request: query.pageToken: not a page token this API issued', [
    { path: 'query.pageToken', message: 'not a page token this API issued' },
  ]);
}

const byWait = (a: InboxEntry, b: InboxEntry): number =>
  a.waitingSince.getTime() - b.waitingSince.getTime() || (a.workflowId < b.workflowId ? -1 : a.workflowId > b.workflowId ? 1 : 0);

export function inboxRouter(ctx: ApiContext): Router {
  const router = Router();
  router.get('/inbox', async (req, res) => {
    const q = parseOr400(InboxQuerySchema, 'query', req.query);
    if (q.planId !== undefined) {
      const why = planIdProblem(q.planId);
      if (why) throw new ApiError(400, 'invalid_request', `invalid request: query.planId: ${why}`, [{ path: 'query.planId', message: why }]);
    }
    const after = q.pageToken ? decodeCursor(q.pageToken) : undefined;
    const within = ownedClause(callerOfResponse(res.locals));
    const all = (await listInbox(ctx.temporal, { ...(q.planId !== undefined ? { planId: q.planId } : {}), ...(within !== undefined ? { within } : {}) })).sort(byWait);
    const rest = after
      ? all.filter((e) => e.waitingSince.getTime() > after[0] || (e.waitingSince.getTime() === after[0] && e.workflowId > after[1]))
      : all;
    const page = rest.slice(0, q.pageSize);
    const body: z.input<typeof InboxPageSchema> = {
      entries: page.map((e) => ({ ...e, waitingSince: e.waitingSince.toISOString(), uiUrl: ctx.uiLink(e.workflowId) })),
      ...(rest.length > page.length ? { nextPageToken: encodeCursor(page[page.length - 1]!) } : {}),
    };
    res.json(body);
  });
  return router;
}
