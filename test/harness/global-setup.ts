// One dev server and one workflow bundle for the whole jest run; suites read them from the environment.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plannerBundle } from '../../worker/workflow-bundle';
import { startDevServer, type DevServer } from '../../deploy/dev/dev-server';

declare global {
  var __plannerDevServer: DevServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-planner-test-'));
  const started = Date.now();
  const server = await startDevServer({
    dbFile: join(dir, 'temporal.sqlite'),
    uiPort: false,
    logFile: join(dir, 'temporal.log'),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  globalThis.__plannerDevServer = server;
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.TEMPORAL_NAMESPACE = server.namespace;
  process.env.PLANNER_TEST_DIR = dir;

  let code: string;
  try {
    ({ code } = await plannerBundle());
  } catch (err) {
    // jest runs no teardown when its setup fails: stop the server here.
    await server.stop();
    throw err;
  }
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, code);
  process.env.PLANNER_WORKFLOW_BUNDLE = bundlePath;
  process.stderr.write(`\nTemporal dev server ${server.address} (pid ${server.pid}) and workflow bundle ready in ${Date.now() - started} ms\n`);
}
