#!/usr/bin/env node
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS shim: require is the point */
// The `planner` command. The CLI is TypeScript run through tsx, so it needs no build step; tsx reads
// the planner's own tsconfig, whatever directory the command runs in.
const { join } = require('node:path');

const previous = process.env.TSX_TSCONFIG_PATH;
process.env.TSX_TSCONFIG_PATH = join(__dirname, '..', 'tsconfig.json');
require('tsx/cjs');
if (previous === undefined) delete process.env.TSX_TSCONFIG_PATH;
else process.env.TSX_TSCONFIG_PATH = previous;

require('../cli/main.ts').runMain();
