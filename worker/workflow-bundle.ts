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
  return bundleWorkflowCode({ workflowsPath: join(SOURCE_ROOT, 'workflows', 'index.ts'), workflowInterceptorModules: [join(SOURCE_ROOT, 'workflows', 'tracing.ts')], logger });
}
