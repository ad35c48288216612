import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  await globalThis.__plannerDevServer?.stop();
  globalThis.__plannerDevServer = undefined;
  // The run's SQLite file, server log and workflow bundle.
  if (process.env.PLANNER_TEST_DIR) rmSync(process.env.PLANNER_TEST_DIR, { recursive: true, force: true });
}
