// Everything the worker registers as workflows.
export { DelegatedTaskWorkflow } from './delegated-task/workflow';
export { PlanWorkflow } from './plan/workflow';
export { WatchHubWorkflow } from './watch-hub/workflow';
