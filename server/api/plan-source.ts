// Where a plan named by the API comes from: a file under PLANNER_PLAN_DIR (never outside it: no
// absolute paths, no "..", no symlink leading out), or a document in the body. Problems are 400s
// naming the body field and, for a file, the line.
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { formatPath } from '../../a2a/validate';
import { loadPlanFile, planFromValue, PlanError } from '../../plans/load';
import type { PlanRunInput } from '../../workflows/plan/input';
import type { PlanTrust } from '../../plans/caller-agents';
import { InvalidPlanError, PlanNotFoundError, StepNotWaitingError } from '../../client/plan';
import { ApiError, conflict, notFound } from '../errors';

/** The plan file's absolute path under `planDir`, or the 400 that says why not. */
export function resolvePlanFile(planDir: string, planFile: string): string {
  const bad = (why: string): ApiError => new ApiError(400, 'invalid_request', `invalid request: body.planFile: ${why}`, [{ path: 'body.planFile', message: why }]);
  if (!/\.(ya?ml|json)$/i.test(planFile)) throw bad('a plan file ends in .yaml, .yml or .json');
  if (isAbsolute(planFile) || planFile.split(/[\\/]/).includes('..')) throw bad('a path relative to the plan folder, without ".."');
  const root = resolve(planDir);
  const path = resolve(root, planFile);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw bad(`no such plan file in the plan folder (PLANNER_PLAN_DIR)`);
  }
  const realRoot = realpathSync(root);
  const rel = relative(realRoot, real);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) throw bad('the file lies outside the plan folder');
  return real;
}

export interface SourceOptions {
  inputs?: Record<string, string>;
  agentUrls?: Record<string, string>;
  /** The caller's rules (server/context.ts planTrust): a document in the body and its agentUrls are the caller's. */
  trust: PlanTrust;
}

/** Loads and checks the plan; PlanError becomes a 400 with one detail per problem, under `where`. */
export function loadPlan(source: { planFile: string } | { plan: unknown }, where: string, opts: SourceOptions): PlanRunInput {
  try {
    const run = 'planFile' in source ? loadPlanFile(source.planFile, opts) : planFromValue(source.plan, 'plan', opts);
    return { ...run, source: 'planFile' in source ? `api: ${source.planFile}` : 'api' };
  } catch (e) {
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
