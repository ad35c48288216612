// The Docker image's build step: the workflow bundle, prebuilt once, used by every worker of the
// image through PLANNER_WORKFLOW_BUNDLE (no webpack at start-up).
import { writeFileSync } from 'node:fs';
import { plannerBundle } from '../../worker/workflow-bundle';

async function main(): Promise<void> {
  const out = process.argv[2] ?? 'dist/workflow-bundle.js';
  const { code } = await plannerBundle();
  writeFileSync(out, code);
  console.log(`workflow bundle: ${out} (${code.length} bytes)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
