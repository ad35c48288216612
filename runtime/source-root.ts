// The repository's root, whether this code runs from its TypeScript sources (through tsx or jest) or
// compiled into dist/ (the fast `planner` command, bin/planner.js): files that are not compiled
// (workflow sources for the bundler, demo plans, entries run through tsx) are found from here,
// never from __dirname, which is one level deeper under dist/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRoot(from: string): string {
  // Bounded by the depth of the file system: dirname of the root is the root.
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}: cannot find the planner's sources`);
  }
}

export const SOURCE_ROOT = findRoot(__dirname);
