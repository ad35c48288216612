#!/usr/bin/env node
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS shim: require is the point */
// The `planner` command. It runs the compiled CLI in dist/, built by scripts/ensure-deps.sh (which
// `npm start`, `npm test`, `npm run demo` run) or `npm run build`: a command then loads in a tenth of
// a second, not the seconds tsx takes to transpile it. When dist/ is missing or older than a source
// file, the sources run through tsx instead, so an edit is never run stale; tsx then reads the
// planner's own tsconfig, whatever directory the command runs in.
const { join } = require('node:path');
const { COMPILED_MAIN, compiledCliIsStale } = require('./compiled-cli');

if (!compiledCliIsStale()) {
  require(COMPILED_MAIN).runMain();
} else {
  const previous = process.env.TSX_TSCONFIG_PATH;
  process.env.TSX_TSCONFIG_PATH = join(__dirname, '..', 'tsconfig.json');
  require('tsx/cjs');
  if (previous === undefined) delete process.env.TSX_TSCONFIG_PATH;
  else process.env.TSX_TSCONFIG_PATH = previous;
  require('../cli/main.ts').runMain();
}
