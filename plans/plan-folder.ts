// The operator's plan folder (PLANNER_PLAN_DIR) as the server's surfaces see it: the API's
// {planFile}, schedules and the A2A face's skills name files in it, and each name resolves inside
// the folder after symlinks (a link leading out is refused, or left out of the skills), the card
// files those plans name included. Messages name files relative to the folder, never by a server
// path, since they go back to callers.
import { readdirSync, realpathSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import type { PlanRunInput } from '../workflows/plan/input';
import { loadPlanFile, pathInside, type LoadOptions } from './load';

export const PLAN_FILE_EXTENSIONS = ['.yaml', '.yml', '.json'];

/** A name the folder will not serve; the message names the name as given, never a server path. */
export class PlanFileRefused extends Error {
  override readonly name = 'PlanFileRefused';
}

/** The folder's real path (symlinks resolved); throws PlanFileRefused when the folder is missing. */
export function realFolder(folder: string): string {
  try {
    return realpathSync(resolve(folder));
  } catch {
    throw new PlanFileRefused('the plan folder (PLANNER_PLAN_DIR) does not exist');
  }
}

/** The real path of the plan file `name` (relative to the folder) or PlanFileRefused saying why not. */
export function planFileInFolder(folder: string, name: string): string {
  if (!PLAN_FILE_EXTENSIONS.some((x) => name.toLowerCase().endsWith(x))) throw new PlanFileRefused('a plan file ends in .yaml, .yml or .json');
  if (isAbsolute(name) || name.split(/[\\/]/).includes('..')) throw new PlanFileRefused('a path relative to the plan folder, without ".."');
  const root = realFolder(folder);
  const path = resolve(root, name);
  try {
    realpathSync(path);
  } catch {
    throw new PlanFileRefused('no such plan file in the plan folder (PLANNER_PLAN_DIR)');
  }
  if (pathInside(root, path) === undefined) throw new PlanFileRefused('the file lies outside the plan folder (a symlink leading out)');
  return realpathSync(path);
}

/** The folder's plan files that resolve inside it, by name; each left out is reported by name and why. */
export function planFilesInFolder(folder: string, onLeftOut: (name: string, why: string) => void = () => {}): Array<{ name: string; path: string }> {
  let root: string;
  let names: string[];
  try {
    root = realFolder(folder);
    names = readdirSync(root).filter((n) => PLAN_FILE_EXTENSIONS.includes(extname(n))).sort();
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      return [{ name, path: planFileInFolder(root, name) }];
    } catch (e) {
      onLeftOut(name, (e as Error).message);
      return [];
    }
  });
}

/**
 * Reads and checks the plan file `name` of the folder. Problems (PlanError) name the file as `name`;
 * card files it names must lie inside the folder too.
 */
export function loadPlanFileInFolder(folder: string, name: string, opts: Omit<LoadOptions, 'baseDir' | 'confineTo'> = {}): PlanRunInput {
  const path = planFileInFolder(folder, name);
  return loadPlanFile(path, { ...opts, name, confineTo: realFolder(folder) });
}
