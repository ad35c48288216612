// Everything the worker registers as workflows.
export { DelegatedTaskWorkflow } from './delegated-task';
export { PlanWorkflow } from './plan';
