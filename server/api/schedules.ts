// Temporal Schedules that start a plan with inputs (client/schedule.ts, shared with the CLI). A
// caller's schedule is its own (PlannerOwner on the schedule and on every plan it starts): another
// caller gets the not-found answer for it on every route; an operator reaches all (ownership.ts).
// Each caller may have PLANNER_SCHEDULES_PER_CALLER of them (429 past that), none shorter than
// PLANNER_SCHEDULE_MIN_INTERVAL; a bad interval or cron field is a 400 naming body.every or body.cron.
import { Router } from 'express';
import type { z } from 'zod';
import {
  createPlanSchedule,
  deletePlanSchedule,
  describePlanSchedule,
  InvalidScheduleError,
  listPlanSchedules,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  triggerPlanSchedule,
  TooManySchedulesError,
  type PlanScheduleSummary,
} from '../../client/schedule';
import { InvalidPlanError } from '../../client/plan';
import { callerOfResponse, type Caller } from '../auth';
import { planTrust, type ApiContext } from '../context';
import { ApiError, conflict, notFound, parseOr400 } from '../errors';
import { mayAccess } from './ownership';
import { loadPlan } from './plan-source';
import { CreateScheduleBodySchema, ScheduleParams, type ScheduleListSchema, type ScheduleSchema, type ScheduleTriggerResultSchema } from './schemas';

export function schedulesRouter(ctx: ApiContext): Router {
  const router = Router();
  const view = ({ owner: _owner, ...s }: PlanScheduleSummary): z.input<typeof ScheduleSchema> => ({
    ...s,
    recentPlans: s.recentPlans.map((p) => ({ ...p, uiUrl: ctx.uiLink(p.planId) })),
  });
  const missing = (scheduleId: string) => notFound(`no schedule with id ${scheduleId}`);
  /** The caller's schedule; another's is not found, exactly as an unknown id. */
  const owned = async (caller: Caller, scheduleId: string): Promise<PlanScheduleSummary> => {
    let s: PlanScheduleSummary;
    try {
      s = await describePlanSchedule(ctx.temporal, scheduleId);
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) throw missing(scheduleId);
      throw err;
    }
    if (!mayAccess(caller, s.owner)) throw missing(scheduleId);
    return s;
  };
  const known = async <T>(scheduleId: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) throw missing(scheduleId);
      throw err;
    }
  };

  router.post('/schedules', async (req, res) => {
    const b = parseOr400(CreateScheduleBodySchema, 'body', req.body);
    const caller = callerOfResponse(res.locals);
    // A plan file is read here, inside the plan folder (its messages name it relative to the folder); the schedule keeps the plan it holds.
    const fromFile = b.planFile !== undefined ? loadPlan({ planFile: b.planFile }, 'body', { inputs: b.inputs, agentUrls: b.agentUrls, planDir: ctx.config.PLANNER_PLAN_DIR, trust: planTrust(ctx.config, 'operator', 'caller') }) : undefined;
    const source = fromFile ? { plan: fromFile.plan } : { plan: b.plan };
    let created: PlanScheduleSummary;
    try {
      created = await createPlanSchedule(
        ctx.temporal,
        {
          scheduleId: b.scheduleId,
          timing: { ...(b.every !== undefined ? { every: b.every } : { cron: b.cron }), overlap: b.overlap },
          source,
          ...(b.inputs ? { inputs: b.inputs } : {}),
          ...(b.agentUrls && !fromFile ? { agentUrls: b.agentUrls } : {}),
          ...(b.note ? { note: b.note } : {}),
          trust: planTrust(ctx.config, b.planFile !== undefined ? 'operator' : 'caller', 'caller'),
          owner: caller.principal,
        },
        {
          taskQueue: ctx.config.PLANNER_TASK_QUEUE,
          minInterval: ctx.config.PLANNER_SCHEDULE_MIN_INTERVAL,
          maxPerCaller: ctx.config.PLANNER_SCHEDULES_PER_CALLER,
        },
      );
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning) throw conflict(`a schedule with id ${b.scheduleId} exists already; delete it first`);
      if (err instanceof TooManySchedulesError) throw new ApiError(429, 'limit_exceeded', err.message);
      if (err instanceof InvalidScheduleError && err.field !== undefined) {
        const detail = err.detail ?? err.message;
        throw new ApiError(400, 'invalid_request', `invalid request: body.${err.field}: ${detail}`, [{ path: `body.${err.field}`, message: detail }]);
      }
      if (err instanceof InvalidPlanError || err instanceof InvalidScheduleError) throw new ApiError(400, 'invalid_request', err.message);
      // The server's own check of the spec (INVALID_ARGUMENT, also as the client's ServiceError's cause), behind ours.
      const refused = [err, (err as { cause?: unknown }).cause].find((e) => (e as { code?: number } | undefined)?.code === 3) as Error | undefined;
      if (refused) throw new ApiError(400, 'invalid_request', `invalid schedule: ${refused.message}`);
      throw err;
    }
    ctx.logger.info({ scheduleId: b.scheduleId, plan: created.plan }, 'schedule created');
    res.status(201).location(`/v1/schedules/${encodeURIComponent(b.scheduleId)}`).json(view(created));
  });

  router.get('/schedules', async (_req, res) => {
    const caller = callerOfResponse(res.locals);
    const all = await listPlanSchedules(ctx.temporal, caller.operator ? {} : { owner: caller.principal });
    // Visibility filtered them; each one's own record decides (a listing may lag a moment).
    const out: z.input<typeof ScheduleListSchema> = { schedules: all.filter((s) => mayAccess(caller, s.owner)).map(view) };
    res.json(out);
  });

  router.get('/schedules/:scheduleId', async (req, res) => {
    const { scheduleId } = parseOr400(ScheduleParams, 'path', req.params);
    res.json(view(await owned(callerOfResponse(res.locals), scheduleId)));
  });

  // Starts a plan now, as if the schedule's time had come (its overlap policy applies).
  router.post('/schedules/:scheduleId/trigger', async (req, res) => {
    const { scheduleId } = parseOr400(ScheduleParams, 'path', req.params);
    await owned(callerOfResponse(res.locals), scheduleId);
    await known(scheduleId, () => triggerPlanSchedule(ctx.temporal, scheduleId));
    ctx.logger.info({ scheduleId }, 'schedule triggered');
    const out: z.input<typeof ScheduleTriggerResultSchema> = { scheduleId, triggered: true };
    res.status(202).json(out);
  });

  router.delete('/schedules/:scheduleId', async (req, res) => {
    const { scheduleId } = parseOr400(ScheduleParams, 'path', req.params);
    await owned(callerOfResponse(res.locals), scheduleId);
    await known(scheduleId, () => deletePlanSchedule(ctx.temporal, scheduleId));
    ctx.logger.info({ scheduleId }, 'schedule deleted');
    res.status(204).end();
  });

  return router;
}
