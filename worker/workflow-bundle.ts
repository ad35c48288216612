// The workflow code, bundled once with webpack before the workers start. The bundler's logger is
// quiet on success (webpack's asset table is noise to someone starting the planner) and still
// shows its errors. Every bundle of the planner's workflows (worker, tests, bench, images,
// cluster, recorded histories) is made here, so they are all the same code. Every bundle holds the
// tracing interceptors (workflows/tracing.ts): inert unless a traced client started the workflow,
// so a prebuilt bundle traces once its worker is started with OTEL_* set (docs/tracing.md).
import { join } from 'node:path';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { SOURCE_ROOT } from '../runtime/source-root';

const quietBundlerLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error: (message: string) => process.stderr.write(`${message}\n`),
};

export async function bundlePlannerWorkflows(): Promise<WorkflowBundle> {
  const { code } = await plannerBundle();
  return { code };
}

/** The bundle with its source map (what the tests and the bench write to a file). */
export function plannerBundle(logger: Parameters<typeof bundleWorkflowCode>[0]['logger'] = quietBundlerLogger): ReturnType<typeof bundleWorkflowCode> {
  // From the TypeScript sources even when this file runs compiled (dist/): one bundle, the same code.
  const workflowsPath = join(SOURCE_ROOT, 'workflows', 'index.ts');
  const interceptors = join(SOURCE_ROOT, 'workflows', 'tracing.ts');
  // The workflows' modules are evaluated once per worker, not at each workflow start and after each
  // cache eviction (the reusable V8 context's per-workflow module cache: bench/lib/workflow-modules.ts).
  // The SDK freezes what they export, so none of them may keep state at module scope: every
  // workflow's state lives in what its function makes (test/workflow-modules.test.ts holds this).
  // Modules a workflow require()s later (zod and the schemas, OTel) still load per workflow.
  return bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: [interceptors], preloadModules: [workflowsPath, interceptors], logger });
}
