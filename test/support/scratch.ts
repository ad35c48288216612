// Files a test writes (plans, configs, credentials) go in the run's own folder, which the global
// teardown removes: a run leaves nothing behind in the machine's temp folder.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function scratchDir(prefix: string): string {
  return mkdtempSync(join(process.env.PLANNER_TEST_DIR ?? tmpdir(), `${prefix}-`));
}
