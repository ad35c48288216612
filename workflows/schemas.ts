// The zod schemas workflow code needs, loaded when first called rather than imported. In the
// worker's sandbox every workflow gets its own instance of each module it imports (the reusable V8
// context shares only modules loaded before the first workflow, and it freezes those, which zod's
// lazily defined schema methods cannot bear), so a top-level import of zod and the A2A and plan
// schemas is evaluated again at every workflow start: about 12 ms of CPU each (docs/benchmarks.md).
// A require() inside a function is evaluated only by the workflows that call it, once each.
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as A2aSchema from '../a2a/schema';
import type * as PlanSchema from './plan/input';
import type * as DelegatedTaskInput from './delegated-task/input';

export const delegatedTaskSchemas = (): typeof DelegatedTaskInput => require('./delegated-task/input') as typeof DelegatedTaskInput;
export const a2aSchemas = (): typeof A2aSchema => require('../a2a/schema') as typeof A2aSchema;
export const planSchemas = (): typeof PlanSchema => require('./plan/input') as typeof PlanSchema;
