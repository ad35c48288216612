// A megabyte artifact reads as JSON in the Temporal UI of `planner dev`: planner dev (as a user runs
// it) starts its own dev server with the UI pointed at the API's codec endpoint (/codec), a task
// ends with a 1 MiB artifact, which the history holds only as a claim-check reference, and the UI
// in a real browser (Debian's chromium, driven by playwright-core) shows the result decoded: the
// artifact's name and the first bytes of its data, not the reference.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort } from '../deploy/dev/dev-server';
import { payloadSettings, plannerDataConverter } from '../payloads/data-converter';
import { loadConfig } from '../runtime/config';
import { connectClient, temporalTarget } from '../runtime/temporal-connection';
import { EXPORT_ARTIFACT, exportBytes, startExporter, type AgentHandle } from './agents';
import { uniqueQueue } from './harness/planner';
import { start } from './support/delegated';
import { spawnPlanner, type Exit, type Spawned } from './support/planner-cli';
import { eventually } from './support/wait';

const CHROMIUM = '/usr/bin/chromium';
const SIZE = 1024 * 1024;
const queue = uniqueQueue('ui-codec');
/** Screenshots stay after the run (the run's own folder is removed): look at them. */
const outDir = process.env.PLANNER_TEST_OUTPUT ? join(process.env.PLANNER_TEST_OUTPUT, 'temporal-ui-codec') : mkdtempSync(join(tmpdir(), 'a2a-planner-ui-codec-'));
const workDir = mkdtempSync(join(process.env.PLANNER_TEST_DIR ?? tmpdir(), 'ui-codec-'));
const blobDir = join(workDir, 'blobs');

let dev: Spawned;
let stderr = '';
let temporalAddress: string;
let uiUrl: string;
let client: Client;
let exporter: AgentHandle;
let browser: Browser;

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** A gRPC port whose UI port (one thousand above, as planner dev puts it) is free too. */
async function devServerPorts(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    if (port + 1000 <= 65535 && (await portFree(port + 1000))) return port;
  }
  throw new Error('no free pair of ports (gRPC, gRPC + 1000) in 20 tries');
}

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  const port = await devServerPorts();
  temporalAddress = `127.0.0.1:${port}`;
  uiUrl = `http://127.0.0.1:${port + 1000}`;
  dev = spawnPlanner(queue, ['dev', '--no-agents'], {
    cwd: workDir, // its dev server's data goes to .planner/ here
    env: { TEMPORAL_ADDRESS: temporalAddress, PLANNER_BLOB_DIR: blobDir, PLANNER_PORT: '0', PLANNER_LOG_LEVEL: 'info', PLANNER_API_TOKEN: '', PLANNER_UI_URL: '' },
    killAfterMs: 400_000,
  });
  dev.child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  let exited: Exit | undefined;
  void dev.exit.then((r) => (exited = r));
  await eventually(
    () => {
      if (exited) throw new Error(`planner dev exited with ${exited.code}:\n${exited.stderr}\n${exited.stdout.slice(-4000)}`);
      return /a2a-planner is running/.test(stderr);
    },
    'the banner of planner dev',
    180_000,
    250,
  );
  const connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: 'default' }, {}));
  client = new Client({ connection, namespace: 'default', dataConverter: plannerDataConverter(payloadSettings(loadConfig({ PLANNER_BLOB_DIR: blobDir }))) });
  exporter = await startExporter({ artifactBytes: SIZE });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await exporter?.close();
  await client?.connection.close();
  if (dev && dev.child.exitCode === null && dev.child.signalCode === null) {
    dev.child.kill('SIGINT'); // planner dev stops its dev server and workers
    const timer = setTimeout(() => dev.child.kill('SIGKILL'), 30_000);
    await dev.exit;
    clearTimeout(timer);
  }
}, 60_000);

/** The text of the page and of every frame in it. */
async function allText(page: Page): Promise<string> {
  const texts = await Promise.all(page.frames().map((f) => f.locator('body').innerText({ timeout: 2000 }).catch(() => '')));
  return texts.join('\n');
}

it('shows the 1 MiB artifact of a finished task decoded, as JSON, in the UI that planner dev started', async () => {
  const handle = await start(client, queue, { agent: { name: 'exporter', url: exporter.baseUrl }, message: { text: 'Export the data set' } });
  const result = await handle.result();
  expect(result.artifacts.map((a) => a.name)).toEqual([EXPORT_ARTIFACT]);
  // The history holds the result as a reference only.
  const completed = (await handle.fetchHistory()).events!.find((e) => e.workflowExecutionCompletedEventAttributes)!;
  const stored = completed.workflowExecutionCompletedEventAttributes!.result!.payloads![0]!;
  expect(Buffer.from(stored.metadata!.encoding!).toString()).toBe('a2a-planner/claim-check');
  expect(stored.data!.length).toBeLessThan(1024);

  const { runId } = await handle.describe();
  const page = await browser.newPage({ viewport: { width: 1400, height: 1200 } });
  const codecCalls: number[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/codec/decode')) codecCalls.push(r.status());
  });
  const firstBytes = exportBytes(SIZE).subarray(0, 30).toString('base64');
  try {
    await page.goto(`${uiUrl}/namespaces/default/workflows/${encodeURIComponent(handle.workflowId)}/${runId}/history`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    const text = await eventually(async () => {
      const t = await allText(page);
      return t.includes(firstBytes) ? t : undefined;
    }, 'the decoded artifact in the workflow page', 60_000, 500);
    await page.screenshot({ path: join(outDir, 'decoded.png'), fullPage: false });
    process.stderr.write(`Temporal UI screenshot: ${join(outDir, 'decoded.png')}\n`);
    expect(text).toContain(EXPORT_ARTIFACT);
    expect(text).toContain('TASK_STATE_COMPLETED');
    expect(text).not.toContain((JSON.parse(Buffer.from(stored.data!).toString()) as { sha256: string }).sha256); // the reference itself is not what shows
    expect(codecCalls.length).toBeGreaterThan(0);
    expect(codecCalls.every((s) => s === 200)).toBe(true);
  } finally {
    await page.screenshot({ path: join(outDir, 'last.png'), fullPage: false }).catch(() => undefined);
    await page.close();
  }
}, 180_000);
