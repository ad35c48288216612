// Where a plan named by the API comes from: a file under PLANNER_PLAN_DIR (never outside it: no
// absolute paths, no "..", no symlink leading out, for its card files too; plans/plan-folder.ts), or a
// document in the body. Problems are 400s naming the body field and, for a file, the line, and name
// files relative to the folder, never by a server path.
import { formatPath } from '../../a2a/validate';
import { planFromValue, PlanError } from '../../plans/load';
import { loadPlanFileInFolder, PlanFileRefused } from '../../plans/plan-folder';
import type { PlanRunInput } from '../../workflows/plan/input';
import type { PlanTrust } from '../../plans/caller-agents';
import { InvalidPlanError, PlanNotFoundError, StepNotWaitingError } from '../../client/plan';
import { ApiError, conflict, notFound } from '../errors';

const badPlanFile = (why: string): ApiError => new ApiError(400, 'invalid_request', `invalid request: body.planFile: ${why}`, [{ path: 'body.planFile', message: why }]);

export interface SourceOptions {
  inputs?: Record<string, string>;
  agentUrls?: Record<string, string>;
  /** The plan folder a planFile is named in (PLANNER_PLAN_DIR). */
  planDir: string;
  /** The caller's rules (server/context.ts planTrust): a document in the body and its agentUrls are the caller's. */
  trust: PlanTrust;
}

/** Loads and checks the plan; PlanError becomes a 400 with one detail per problem, under `where`. */
export function loadPlan(source: { planFile: string } | { plan: unknown }, where: string, opts: SourceOptions): PlanRunInput {
  try {
    const { planDir, ...load } = opts;
    const run = 'planFile' in source ? loadPlanFileInFolder(planDir, source.planFile, load) : planFromValue(source.plan, 'plan', load);
    return { ...run, source: 'planFile' in source ? `api: ${source.planFile}` : 'api' };
  } catch (e) {
    if (e instanceof PlanFileRefused) throw badPlanFile(e.message);
    if (!(e instanceof PlanError)) throw e;
    const details = e.problems.map((p) => ({
      path: 'planFile' in source ? 'body.planFile' : [where, formatPath(p.path)].filter(Boolean).join('.'),
      message: `${p.line !== undefined ? `line ${p.line}: ` : ''}${'planFile' in source && p.path.length ? `${formatPath(p.path)}: ` : ''}${p.message}`,
    }));
    throw new ApiError(400, 'invalid_request', `the plan cannot run: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
  }
}

/** client/plan.ts's errors as the API's: unknown plan or step 404, not waiting 409, bad plan 400. */
export async function withPlan<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof PlanNotFoundError) throw notFound(err.message);
    if (err instanceof StepNotWaitingError) throw conflict(err.message);
    if (err instanceof InvalidPlanError) throw new ApiError(400, 'invalid_request', err.message);
    throw err;
  }
}
