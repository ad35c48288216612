// The Temporal UI in a real browser (Debian's chromium, driven by playwright-core): the workflow list
// filtered by PlannerWaitingOn="human" shows the waiting delegated task, and its page shows the
// agent's question in the current details. The run's shared dev server is headless, so this suite
// starts a second dev server with its UI, and the planner's workers on it.
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { connectClient, temporalTarget } from '../runtime/temporal-connection';
import { chromium, type Browser } from 'playwright-core';
import { startDevServer, type DevServer } from '../deploy/dev/dev-server';
import { BASE_BRANCH_QUESTION, startCodeReviewer, type AgentHandle } from './agents';
import { startWorkers, testDataConverter, uniqueQueue, type RunningWorkers } from './harness/planner';
import { DIFF, start, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const CHROMIUM = '/usr/bin/chromium';
const queue = uniqueQueue('ui');
let server: DevServer;
let client: Client;
let workers: RunningWorkers;
let reviewer: AgentHandle;
let browser: Browser;
/** Screenshots stay after the run (the run's own folder is removed): look at them. */
const outDir = process.env.PLANNER_TEST_OUTPUT ? join(process.env.PLANNER_TEST_OUTPUT, 'temporal-ui') : mkdtempSync(join(tmpdir(), 'a2a-planner-ui-'));

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh (scripts/test.sh does) as root`);
  mkdirSync(outDir, { recursive: true });
  // Its database goes with the run's folder (removed at teardown); only the screenshots stay.
  const dbDir = join(process.env.PLANNER_TEST_DIR ?? outDir, 'ui-dev-server');
  server = await startDevServer({ dbFile: join(dbDir, 'temporal.sqlite'), logFile: join(dbDir, 'temporal.log') });
  client = new Client({ connection: await connectClient(temporalTarget({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace }, {})), namespace: server.namespace, dataConverter: testDataConverter() });
  workers = await startWorkers(queue, { TEMPORAL_ADDRESS: server.address });
  reviewer = await startCodeReviewer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await workers?.stop();
  await reviewer?.close();
  await client?.connection.close();
  await server?.stop();
});

it('lists the task waiting on a human and shows its question in the current details', async () => {
  const handle = await start(client, queue, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
  await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  try {
    const query = encodeURIComponent('PlannerWaitingOn="human"');
    const list = `${server.uiUrl}/namespaces/${server.namespace}/workflows?query=${query}`;
    const row = page.locator(`a[href*="/workflows/${encodeURIComponent(handle.workflowId)}/"]`).first();
    // The list is read once per load: load it again until visibility has caught up.
    await eventually(async () => {
      await page.goto(list, { waitUntil: 'domcontentloaded', timeout: 30_000 });
      return row.waitFor({ timeout: 10_000 }).then(() => true, () => false);
    }, 'the waiting task in the filtered workflow list', 60_000, 500);
    await page.screenshot({ path: join(outDir, 'list.png'), fullPage: true });
    expect(await page.getByText('PlannerWaitingOn').first().isVisible()).toBe(true); // the filter is applied
    await row.click();
    // The summary and the current details are on the workflow's "User Metadata" tab.
    await page.getByText('User Metadata', { exact: true }).first().click({ timeout: 30_000 });
    // The UI renders the markdown of the current details in a sandboxed iframe: read every frame's text.
    const details = await eventually(async () => {
      for (const frame of page.frames()) {
        const text = await frame.locator('body').innerText({ timeout: 1000 }).catch(() => '');
        if (text.includes(BASE_BRANCH_QUESTION)) return text;
      }
      return undefined;
    }, 'the question in the current details', 30_000, 250);
    await page.screenshot({ path: join(outDir, 'workflow.png'), fullPage: true });
    process.stderr.write(`Temporal UI screenshots: ${join(outDir, 'list.png')}, ${join(outDir, 'workflow.png')}\n`);
    expect(details).toContain('Waiting on a human (question turn 1)');
    expect(details).toContain(BASE_BRANCH_QUESTION);
    expect(await page.getByText('Current Details').first().isVisible()).toBe(true);
  } finally {
    await page.screenshot({ path: join(outDir, 'last.png'), fullPage: true }).catch(() => undefined);
    await page.close();
  }
  // Answer it, so the run leaves nothing waiting.
  await handle.signal('answer', { text: 'main' });
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
});
