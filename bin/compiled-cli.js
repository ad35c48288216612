'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS file run by node as it is */
// Whether the compiled CLI in dist/ is as new as its sources: read by bin/planner.js at every call
// (a walk of some 200 files, a few milliseconds) and by scripts/ensure-deps.sh, which rebuilds when
// it is not. The folders are tsconfig.build.json's, so the check and the build cover the same files.
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
// dist/.complete is written by scripts/ensure-deps.sh (and `npm run build`) after a build that
// succeeded; its time is the build's.
const COMPILED_MAIN = join(ROOT, 'dist', 'cli', 'main.js');

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** True when a source file (or a tsconfig) of `root` is newer than its last finished build, or there is none. */
function compiledCliIsStale(root = ROOT) {
  const built = mtime(join(root, 'dist', '.complete'));
  if (built === undefined || mtime(join(root, 'dist', 'cli', 'main.js')) === undefined) return true;
  const configs = [join(root, 'tsconfig.json'), join(root, 'tsconfig.build.json')];
  if (configs.some((f) => (mtime(f) ?? Infinity) > built)) return true;
  const { include } = JSON.parse(readFileSync(configs[1], 'utf8'));
  const folders = include.map((f) => join(root, f));
  // Bounded by the tree: each folder is visited once.
  while (folders.length > 0) {
    const folder = folders.pop();
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue; // a folder the build lists but the checkout lacks
    }
    for (const e of entries) {
      const path = join(folder, e.name);
      if (e.isDirectory()) folders.push(path);
      else if (e.name.endsWith('.ts') && (mtime(path) ?? 0) > built) return true;
    }
  }
  return false;
}

module.exports = { COMPILED_MAIN, compiledCliIsStale };

// `node bin/compiled-cli.js`: exit 1 when a build is due (scripts/ensure-deps.sh asks).
if (require.main === module) process.exitCode = compiledCliIsStale() ? 1 : 0;
