// Temporal Schedules that start a plan with inputs (client/schedule.ts, shared with the CLI). Each
// caller may have PLANNER_SCHEDULES_PER_CALLER of them (429 past that), none shorter than
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
  TooManySchedulesError,
  type PlanScheduleSummary,
} from '../../client/schedule';
import { InvalidPlanError } from '../../client/plan';
import { principalOfResponse } from '../auth';
import type { ApiContext } from '../context';
import { ApiError, conflict, notFound, parseOr400 } from '../errors';
import { resolvePlanFile } from './plan-source';
import { CreateScheduleBodySchema, ScheduleParams, type ScheduleListSchema, type ScheduleSchema } from './schemas';

export function schedulesRouter(ctx: ApiContext): Router {
  const router = Router();
  const view = (s: PlanScheduleSummary): z.input<typeof ScheduleSchema> => ({
    ...s,
    recentPlans: s.recentPlans.map((p) => ({ ...p, uiUrl: ctx.uiLink(p.planId) })),
  });
  const known = async <T>(scheduleId: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) throw notFound(`no schedule with id ${scheduleId}`);
      throw err;
    }
  };

  router.post('/schedules', async (req, res) => {
    const b = parseOr400(CreateScheduleBodySchema, 'body', req.body);
    const source = b.planFile !== undefined ? { planFile: resolvePlanFile(ctx.config.PLANNER_PLAN_DIR, b.planFile) } : { plan: b.plan };
    let created: PlanScheduleSummary;
    try {
      created = await createPlanSchedule(
        ctx.temporal,
        {
          scheduleId: b.scheduleId,
          timing: { ...(b.every !== undefined ? { every: b.every } : { cron: b.cron }), overlap: b.overlap },
          source,
          ...(b.inputs ? { inputs: b.inputs } : {}),
          ...(b.agentUrls ? { agentUrls: b.agentUrls } : {}),
          ...(b.note ? { note: b.note } : {}),
        },
        {
          taskQueue: ctx.config.PLANNER_TASK_QUEUE,
          minInterval: ctx.config.PLANNER_SCHEDULE_MIN_INTERVAL,
          principal: principalOfResponse(res.locals),
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
    const out: z.input<typeof ScheduleListSchema> = { schedules: (await listPlanSchedules(ctx.temporal)).map(view) };
    res.json(out);
  });

  router.get('/schedules/:scheduleId', async (req, res) => {
    const { scheduleId } = parseOr400(ScheduleParams, 'path', req.params);
    res.json(view(await known(scheduleId, () => describePlanSchedule(ctx.temporal, scheduleId))));
  });

  router.delete('/schedules/:scheduleId', async (req, res) => {
    const { scheduleId } = parseOr400(ScheduleParams, 'path', req.params);
    await known(scheduleId, () => deletePlanSchedule(ctx.temporal, scheduleId));
    ctx.logger.info({ scheduleId }, 'schedule deleted');
    res.status(204).end();
  });

  return router;
}
