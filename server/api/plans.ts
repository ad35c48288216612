// Plans over HTTP: start (from a file under PLANNER_PLAN_DIR or a document; Idempotency-Key makes a
// retried POST return the same plan), read, list (visibility, paged), cancel, answer a step, and
// follow a plan's state changes as server-sent events (plan-events.ts). A caller starts plans as
// its own (PlannerOwner) and reaches only those; an operator reaches all (ownership.ts). Everything
// goes through client/plan.ts, the code the CLI uses, and everything is read from Temporal.
import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { Router } from 'express';
import type { z } from 'zod';
import { answerStepWithin, cancelPlan, describePlan, PlanNotFoundError, startPlan, PLAN_WORKFLOW_TYPE } from '../../client/plan';
import { PlanId, PlannerWaitingOn } from '../../workflows/search-attributes';
import { canonicalJson } from '../../workflows/canonical-json';
import { callerOfResponse } from '../auth';
import { planTrust, type ApiContext } from '../context';
import { ApiError, conflict, parseOr400 } from '../errors';
import { answerWithin, refuseLargeAnswer } from './answer-wait';
import { openPageToken, pageTokenKey, sealPageToken } from './page-token';
import { streamPlanEvents } from './plan-events';
import { ownedClause, requireOwnedPlan } from './ownership';
import { loadPlan, withPlan } from './plan-source';
import {
  AnswerBodySchema,
  PlanDocBodySchema,
  PlanFileBodySchema,
  PlanListQuerySchema,
  PlanParams,
  StepParams,
  type CancelResultSchema,
  type PlanPageSchema,
  type PlanSchema,
  type StartedPlanSchema,
  type StepAnswerResultSchema,
} from './schemas';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/**
 * The plan id a caller's Idempotency-Key stands for: a hash of both, so one caller's key never names
 * another's plan, and the key itself never shows in ids, lists or the UI.
 */
export function planIdForKey(principal: string, key: string): string {
  return `plan-k${createHash('sha256').update(`${principal}\n${key}`, 'utf8').digest('hex').slice(0, 32)}`;
}

/** The memo field that keeps the hash of the body a keyed plan was started with. */
export const IDEMPOTENCY_BODY_MEMO = 'idempotencyBody';

/**
 * A hash of a request body that does not depend on the order of its object keys: the same plan,
 * inputs and agents hash the same however a client serialises them.
 */
export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}

const STATUS_QUERY: Record<string, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  timed_out: 'TimedOut',
  continued_as_new: 'ContinuedAsNew',
};
const STATUS_NAME = ['UNSPECIFIED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT'];

type Timestamp = { seconds?: { toString(): string } | number | null; nanos?: number | null } | null | undefined;
const isoOf = (t: Timestamp): string | undefined =>
  t && t.seconds != null ? new Date(Number(t.seconds.toString()) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString() : undefined;

/** A Keyword search attribute as visibility returns it (a JSON payload). */
function keyword(fields: Record<string, { data?: Uint8Array | null }> | null | undefined, name: string): string | undefined {
  const data = fields?.[name]?.data;
  if (!data) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(data).toString('utf8'));
    return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
  } catch {
    return undefined;
  }
}

export function plansRouter(ctx: ApiContext): Router {
  const router = Router();
  const taskQueue = ctx.config.PLANNER_TASK_QUEUE;
  const pageKey = pageTokenKey(ctx.config);

  router.post('/plans', async (req, res) => {
    const body: unknown = req.body;
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(400, 'invalid_request', 'invalid request: body: a JSON object: {planFile, inputs}, {plan, inputs} or a plan document', [
        { path: 'body', message: 'expected an object' },
      ]);
    }
    const key = req.get('idempotency-key');
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw new ApiError(400, 'invalid_request', 'invalid request: header Idempotency-Key: 1 to 200 printable ASCII characters', [
        { path: 'header.Idempotency-Key', message: '1 to 200 printable ASCII characters' },
      ]);
    }
    const run =
      'planFile' in body
        ? (() => {
            const b = parseOr400(PlanFileBodySchema, 'body', body);
            return loadPlan({ planFile: b.planFile }, 'body', { inputs: b.inputs, agentUrls: b.agentUrls, planDir: ctx.config.PLANNER_PLAN_DIR, trust: planTrust(ctx.config, 'operator', 'caller') });
          })()
        : 'plan' in body
          ? (() => {
              const b = parseOr400(PlanDocBodySchema, 'body', body);
              return loadPlan({ plan: b.plan }, 'body.plan', { inputs: b.inputs, agentUrls: b.agentUrls, planDir: ctx.config.PLANNER_PLAN_DIR, trust: planTrust(ctx.config, 'caller', 'caller') });
            })()
          : loadPlan({ plan: body }, 'body', { planDir: ctx.config.PLANNER_PLAN_DIR, trust: planTrust(ctx.config, 'caller', 'caller') });

    const caller = callerOfResponse(res.locals);
    const planId = key !== undefined ? planIdForKey(caller.principal, key) : undefined;
    const hash = key !== undefined ? bodyHash(body) : undefined;
    /** The plan the key already names: the same one when the body is the same, else a 422 naming the key. */
    const replayed = async (id: string): Promise<boolean> => {
      // A key names one plan for as long as Temporal keeps it, running or closed.
      const desc = await requireOwnedPlan(ctx.temporal, caller, id).catch((err: unknown) => {
        if (err instanceof PlanNotFoundError) return undefined;
        throw err;
      });
      if (!desc) return false;
      if (desc.memo?.[IDEMPOTENCY_BODY_MEMO] !== hash) {
        throw new ApiError(422, 'idempotency_key_reused', `Idempotency-Key ${JSON.stringify(key)} was used for another body: plan ${id} was started with it; send that same body, or use a new key for this one`, [
          { path: 'header.Idempotency-Key', message: 'already used with another body' },
        ]);
      }
      res.status(200).set('Idempotent-Replayed', 'true');
      const out: z.input<typeof StartedPlanSchema> = { planId: id, workflowId: id, uiUrl: ctx.uiLink(id) };
      res.json(out);
      return true;
    };
    if (planId !== undefined && (await replayed(planId))) return;
    let started;
    try {
      started = await withPlan(() =>
        startPlan(ctx.temporal, run, { owner: caller.principal, ...(planId ? { planId, memo: { [IDEMPOTENCY_BODY_MEMO]: hash! } } : {}) }, { taskQueue }),
      );
    } catch (err) {
      // The same key, twice at once: Temporal's workflow-id uniqueness lets only one start.
      if (planId !== undefined && err instanceof WorkflowExecutionAlreadyStartedError && (await replayed(planId))) return;
      throw err;
    }
    ctx.logger.info({ planId: started.planId, plan: run.plan.name }, 'plan started');
    const out: z.input<typeof StartedPlanSchema> = { planId: started.planId, workflowId: started.workflowId, uiUrl: ctx.uiLink(started.workflowId) };
    res.status(201).location(`/v1/plans/${encodeURIComponent(started.planId)}`).json(out);
  });

  router.get('/plans', async (req, res) => {
    const q = parseOr400(PlanListQuerySchema, 'query', req.query);
    const parts = [`WorkflowType = "${PLAN_WORKFLOW_TYPE}"`];
    const within = ownedClause(callerOfResponse(res.locals));
    if (within !== undefined) parts.push(within);
    if (q.status) parts.push(`ExecutionStatus = "${STATUS_QUERY[q.status]}"`);
    if (q.waitingOn) parts.push(`${PlannerWaitingOn.name} = "${q.waitingOn}"`);
    const query = parts.join(' AND ');
    let nextPageToken: Buffer | undefined;
    if (q.pageToken !== undefined) {
      // Checked here, at once: Temporal retries a token it cannot read for ~19 s (page-token.ts).
      nextPageToken = openPageToken(pageKey, query, q.pageToken);
      if (!nextPageToken) throw new ApiError(400, 'invalid_request', 'invalid request: query.pageToken: not a page token this API issued for this query (start from the first page)', [{ path: 'query.pageToken', message: 'not a page token this API issued for this query' }]);
    }
    let resp;
    try {
      resp = await ctx.temporal.workflowService.listWorkflowExecutions({
        namespace: ctx.config.TEMPORAL_NAMESPACE,
        query,
        pageSize: q.pageSize,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
    } catch (err) {
      // A token the server cannot read (not one it issued) is the caller's mistake.
      if (nextPageToken && (err as { code?: number }).code === 3) {
        throw new ApiError(400, 'invalid_request', 'invalid request: query.pageToken: not a page token this API issued', [{ path: 'query.pageToken', message: 'not a page token this API issued' }]);
      }
      throw err;
    }
    const out: z.input<typeof PlanPageSchema> = {
      plans: (resp.executions ?? []).map((e) => {
        const planId = e.execution?.workflowId ?? '';
        const fields = e.searchAttributes?.indexedFields as Record<string, { data?: Uint8Array | null }> | undefined;
        const waitingOn = keyword(fields, PlannerWaitingOn.name);
        const startTime = isoOf(e.startTime as Timestamp);
        const closeTime = isoOf(e.closeTime as Timestamp);
        return {
          planId: keyword(fields, PlanId.name) ?? planId,
          runId: e.execution?.runId ?? '',
          workflowStatus: STATUS_NAME[e.status ?? 0] ?? String(e.status),
          ...(waitingOn ? { waitingOn } : {}),
          ...(startTime ? { startTime } : {}),
          ...(closeTime ? { closeTime } : {}),
          uiUrl: ctx.uiLink(planId),
        };
      }),
      ...(resp.nextPageToken && resp.nextPageToken.length > 0 ? { nextPageToken: sealPageToken(pageKey, query, resp.nextPageToken) } : {}),
    };
    res.json(out);
  });

  router.get('/plans/:planId', async (req, res) => {
    const { planId } = parseOr400(PlanParams, 'path', req.params);
    await withPlan(() => requireOwnedPlan(ctx.temporal, callerOfResponse(res.locals), planId));
    const snapshot = await withPlan(() => describePlan(ctx.temporal, planId));
    const out: z.input<typeof PlanSchema> = {
      ...snapshot,
      ...(snapshot.steps ? { steps: snapshot.steps.map((s) => ({ ...s, ...(s.workflowId ? { uiUrl: ctx.uiLink(s.workflowId) } : {}) })) } : {}),
      uiUrl: ctx.uiLink(planId),
    };
    res.json(out);
  });

  router.post('/plans/:planId/cancel', async (req, res) => {
    const { planId } = parseOr400(PlanParams, 'path', req.params);
    const desc = await withPlan(() => requireOwnedPlan(ctx.temporal, callerOfResponse(res.locals), planId));
    if (desc.status.name !== 'RUNNING') throw conflict(`plan ${planId} is ${desc.status.name}: there is nothing to cancel`);
    await withPlan(() => cancelPlan(ctx.temporal, planId));
    ctx.logger.info({ planId }, 'plan cancellation requested');
    const out: z.input<typeof CancelResultSchema> = { planId, cancelRequested: true, uiUrl: ctx.uiLink(planId) };
    res.status(202).json(out);
  });

  router.post('/plans/:planId/steps/:stepId/answer', async (req, res) => {
    const { planId, stepId } = parseOr400(StepParams, 'path', req.params);
    const answer = parseOr400(AnswerBodySchema, 'body', req.body);
    refuseLargeAnswer(ctx, answer);
    const desc = await withPlan(() => requireOwnedPlan(ctx.temporal, callerOfResponse(res.locals), planId));
    if (desc.status.name !== 'RUNNING') throw conflict(`plan ${planId} is ${desc.status.name}: no step waits on a question`);
    // At most PLANNER_ANSWER_WAIT for the agent's reply; then 202, the answer on its way.
    const result = await answerWithin(
      ctx,
      res,
      { workflowId: `${planId}.${stepId}`, planId, stepId, ...(answer.turn !== undefined ? { turn: answer.turn } : {}), uiUrl: ctx.uiLink(planId) },
      (waitMs) =>
        withPlan(() =>
          answerStepWithin(
            ctx.temporal,
            planId,
            stepId,
            { ...(answer.text !== undefined ? { text: answer.text } : { data: answer.data }), ...(answer.turn !== undefined ? { turn: answer.turn } : {}), from: 'api' },
            waitMs,
          ),
        ),
    );
    if (!result) return; // 202: pending
    ctx.logger.info({ planId, stepId, turn: result.turn, state: result.state }, 'step answered');
    const out: z.input<typeof StepAnswerResultSchema> = { planId, stepId, ...result, uiUrl: ctx.uiLink(planId) };
    res.json(out);
  });

  router.get('/plans/:planId/events', async (req, res) => {
    const { planId } = parseOr400(PlanParams, 'path', req.params);
    const desc = await withPlan(() => requireOwnedPlan(ctx.temporal, callerOfResponse(res.locals), planId)); // 404 before the stream starts
    await streamPlanEvents(ctx, desc, req, res);
  });

  return router;
}
