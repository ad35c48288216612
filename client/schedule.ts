// Temporal Schedules that start a plan with inputs, for the API (server/api/schedules.ts) and the
// CLI. The plan is checked when the schedule is created and the checked run input is what each
// action starts with: a bad plan fails now, not at 3 a.m., and a plan file edited later does not
// change a schedule made from it (recreate the schedule to pick up the change). The timing is
// checked here too, before Temporal sees it: each cron field in range (cron.ts), an interval no
// shorter than the caller's minimum; and a caller (its PlannerOwner) may be held to a number of
// schedules.
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleDescription } from '@temporalio/client';
import { z } from 'zod';
import { describeIssues } from '../a2a/validate';
import type { PlanRunInput } from '../workflows/plan/input';
import { DurationSchema } from '../workflows/delegated-task/input';
import { PlanWorkflow } from '../workflows/plan/workflow';
import { PlannerOwner, PlannerWaitingOn } from '../workflows/search-attributes';
import { cronProblem } from './cron';
import { checkPlanSource, PLAN_WORKFLOW_TYPE, type PlanSource } from './plan';
import type { PlanTrust } from '../plans/caller-agents';

export { ScheduleAlreadyRunning, ScheduleNotFoundError };

export class InvalidScheduleError extends Error {
  override readonly name = 'InvalidScheduleError';
  constructor(
    message: string,
    /** The request field at fault (`every`, `cron`, `scheduleId`), when it is one. */
    readonly field?: string,
    /** What is wrong with it, without the field's name. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** The caller has as many schedules as it may (`maxPerCaller`): nothing was created. */
export class TooManySchedulesError extends Error {
  override readonly name = 'TooManySchedulesError';
  constructor(
    readonly principal: string,
    readonly count: number,
    readonly max: number,
  ) {
    super(`this caller has ${count} schedules, the most one caller may have (PLANNER_SCHEDULES_PER_CALLER (${max})); delete one first`);
  }
}

export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'allow_all'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

export const ScheduleIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'letters, digits, ".", "_" or "-", at most 200');

/** When a schedule fires: every interval, or on a cron expression (UTC); exactly one of them. */
export const ScheduleTimingSchema = z
  .strictObject({
    every: DurationSchema.optional().meta({ description: 'An interval such as "2s", "15m", "24h".' }),
    cron: z
      .string()
      .max(200)
      .regex(/^\S+( \S+){4,6}$/, 'a cron expression of 5 to 7 fields, e.g. "0 3 * * *"')
      .superRefine((cron, c) => {
        const problem = cronProblem(cron);
        if (problem) c.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .meta({ description: 'A cron expression (UTC), e.g. "0 3 * * 1-5".' }),
    overlap: z.enum(OVERLAP_POLICIES).default('skip').meta({ description: 'When a run is still going at the next time: skip it (default), buffer one, or allow all.' }),
  })
  .refine((t) => (t.every === undefined) !== (t.cron === undefined), { message: 'give exactly one of every or cron' });
export type ScheduleTiming = z.input<typeof ScheduleTimingSchema>;

const OVERLAP: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer_one: ScheduleOverlapPolicy.BUFFER_ONE,
  allow_all: ScheduleOverlapPolicy.ALLOW_ALL,
};

export interface PlanScheduleRequest {
  scheduleId: string;
  timing: ScheduleTiming;
  /** A plan file (already resolved by the caller) or a plan document. */
  source: PlanSource;
  inputs?: Record<string, string>;
  agentUrls?: Record<string, string>;
  note?: string;
  /** Set by a server for a caller's request (plans/caller-agents.ts); unset: all of it is the operator's. */
  trust?: PlanTrust;
  /** The principal of the API caller creating it: the schedule's PlannerOwner and that of each plan it starts; none from the CLI. */
  owner?: string;
}

export interface PlanScheduleSummary {
  scheduleId: string;
  plan?: string;
  every?: string;
  cron?: string;
  overlap: OverlapPolicy;
  paused: boolean;
  note?: string;
  /** Plans it started, newest last (Temporal keeps the last few). */
  recentPlans: Array<{ planId: string; scheduledAt: string; startedAt: string }>;
  nextTimes: string[];
  actionsTaken: number;
  /** The principal of the API caller that created it; none when the CLI did. */
  owner?: string;
}

export interface CreateScheduleOptions {
  taskQueue: string;
  /** The shortest `every` allowed (PLANNER_SCHEDULE_MIN_INTERVAL on the API). */
  minInterval?: string;
  /** The most schedules one principal may have (PLANNER_SCHEDULES_PER_CALLER on the API). */
  maxPerCaller?: number;
}

/**
 * Checks the plan and the timing, then creates the schedule; ScheduleAlreadyRunning when the id is
 * taken, InvalidScheduleError naming the field, TooManySchedulesError over the caller's bound.
 */
export async function createPlanSchedule(client: Client, req: PlanScheduleRequest, opts: CreateScheduleOptions): Promise<PlanScheduleSummary> {
  const id = ScheduleIdSchema.safeParse(req.scheduleId);
  if (!id.success) throw new InvalidScheduleError(`scheduleId: ${describeIssues(id.error, req.scheduleId)}`, 'scheduleId', describeIssues(id.error, req.scheduleId));
  const timing = ScheduleTimingSchema.safeParse(req.timing);
  if (!timing.success) {
    const field = timing.error.issues[0]?.path[0];
    const detail = describeIssues(timing.error, req.timing);
    throw new InvalidScheduleError(`invalid schedule: ${detail}`, typeof field === 'string' ? field : undefined, typeof field === 'string' && detail.startsWith(`${field}: `) ? detail.slice(field.length + 2) : detail);
  }
  const t = timing.data;
  if (t.every !== undefined && opts.minInterval !== undefined && msToNumber(t.every) < msToNumber(opts.minInterval as Duration)) {
    const detail = `${JSON.stringify(t.every)} is shorter than the shortest interval a schedule may have: PLANNER_SCHEDULE_MIN_INTERVAL (${opts.minInterval})`;
    throw new InvalidScheduleError(`invalid schedule: every: ${detail}`, 'every', detail);
  }
  const run: PlanRunInput = { ...checkPlanSource(req.source, { inputs: req.inputs, agentUrls: req.agentUrls, ...(req.trust ? { trust: req.trust } : {}) }), source: `schedule ${req.scheduleId}` };
  if (req.owner !== undefined && opts.maxPerCaller !== undefined) {
    const count = await countSchedulesOf(client, req.owner);
    if (count >= opts.maxPerCaller) throw new TooManySchedulesError(req.owner, count, opts.maxPerCaller);
  }
  const owned = req.owner !== undefined ? [{ key: PlannerOwner, value: req.owner }] : [];
  await client.schedule.create({
    scheduleId: req.scheduleId,
    spec: t.every !== undefined ? { intervals: [{ every: t.every }] } : { cronExpressions: [t.cron!] },
    action: {
      type: 'startWorkflow',
      workflowType: PlanWorkflow,
      // Temporal appends the scheduled time, so each run has its own plan id.
      workflowId: `plan-${run.plan.name}-${req.scheduleId}`,
      taskQueue: opts.taskQueue,
      args: [run],
      staticSummary: `plan ${run.plan.name} (schedule ${req.scheduleId})`,
      typedSearchAttributes: [{ key: PlannerWaitingOn, value: 'none' }, ...owned],
    },
    // The schedule's own attributes: whose it is, for listing a caller's schedules in visibility.
    ...(owned.length > 0 ? { typedSearchAttributes: owned } : {}),
    policies: { overlap: OVERLAP[t.overlap], catchupWindow: '1m' },
    // The timing as given: Temporal keeps a cron expression only compiled into calendars.
    memo: { plan: run.plan.name, ...(t.every !== undefined ? { every: String(t.every) } : { cron: t.cron }) },
    state: { ...(req.note ? { note: req.note } : {}) },
  });
  return describePlanSchedule(client, req.scheduleId);
}

export async function describePlanSchedule(client: Client, scheduleId: string): Promise<PlanScheduleSummary> {
  return summaryOf(await client.schedule.getHandle(scheduleId).describe());
}

/** How many schedules that start plans this owner (PlannerOwner) has; from the list, no describe per schedule. */
export async function countSchedulesOf(client: Client, owner: string): Promise<number> {
  let n = 0;
  for await (const s of client.schedule.list({ query: ownerQuery(owner) })) if (s.action?.workflowType === PLAN_WORKFLOW_TYPE) n++;
  return n;
}

/** The visibility query of one owner's schedules (an owner is a principal: nothing in it needs quoting). */
function ownerQuery(owner: string): string {
  if (!/^[\w.-]+$/.test(owner)) throw new InvalidScheduleError(`not an owner: ${JSON.stringify(owner)}`);
  return `${PlannerOwner.name} = "${owner}"`;
}

/** Every schedule that starts plans, by id; `owner`: only those of that principal (PlannerOwner). */
export async function listPlanSchedules(client: Client, opts: { owner?: string } = {}): Promise<PlanScheduleSummary[]> {
  const out: PlanScheduleSummary[] = [];
  const query = opts.owner !== undefined ? { query: ownerQuery(opts.owner) } : {};
  for await (const s of client.schedule.list(query)) {
    if (s.action?.workflowType !== PLAN_WORKFLOW_TYPE) continue;
    try {
      out.push(await describePlanSchedule(client, s.scheduleId));
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err; // deleted meanwhile
    }
  }
  return out.sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
}

/** Deletes the schedule: no further plans start; plans it already started run on. */
export async function deletePlanSchedule(client: Client, scheduleId: string): Promise<void> {
  await client.schedule.getHandle(scheduleId).delete();
}

function summaryOf(d: ScheduleDescription): PlanScheduleSummary {
  const memo = (d.memo ?? {}) as { plan?: unknown; every?: unknown; cron?: unknown };
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const interval = d.spec.intervals?.[0];
  const every = str(memo.every) ?? (interval ? `${String(interval.every)}ms` : undefined);
  const cron = str(memo.cron);
  const plan = str(memo.plan);
  const owner = d.typedSearchAttributes?.get(PlannerOwner);
  const overlap = (Object.entries(OVERLAP).find(([, v]) => v === d.policies.overlap)?.[0] ?? 'skip') as OverlapPolicy;
  return {
    scheduleId: d.scheduleId,
    ...(plan !== undefined ? { plan } : {}),
    ...(every !== undefined ? { every } : {}),
    ...(cron !== undefined ? { cron } : {}),
    overlap,
    paused: d.state.paused,
    ...(d.state.note ? { note: d.state.note } : {}),
    recentPlans: d.info.recentActions.map((a) => ({ planId: a.action.workflow.workflowId, scheduledAt: a.scheduledAt.toISOString(), startedAt: a.takenAt.toISOString() })),
    nextTimes: d.info.nextActionTimes.map((t) => t.toISOString()),
    actionsTaken: d.info.numActionsTaken,
    ...(owner !== undefined ? { owner } : {}),
  };
}

/** Starts a plan now, as if the schedule's time had come (its overlap policy applies). */
export async function triggerPlanSchedule(client: Client, scheduleId: string): Promise<void> {
  await client.schedule.getHandle(scheduleId).trigger();
}
