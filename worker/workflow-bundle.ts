// The workflow code, bundled once with webpack before the workers start. The bundler's logger is
// quiet on success (webpack's asset table is noise to someone starting the planner) and still
// shows its errors.
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';

const quietBundlerLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error: (message: string) => process.stderr.write(`${message}\n`),
};

export async function bundlePlannerWorkflows(): Promise<WorkflowBundle> {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quietBundlerLogger });
  return { code };
}
