// The metrics a person alerts on, scraped from the real Prometheus endpoints (PLANNER_METRICS_ADDRESS)
// of a worker (worker/main.ts) and of `planner serve` (server/main.ts), each a child process as an
// operator runs it: a task whose agent asks a question makes a wait on a human (count and age), an
// A2A call per agent, method and outcome, an alert whose first delivery fails and whose retry is
// sent, and API requests by route and status.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../deploy/dev/dev-server';
import { startCodeReviewer, type AgentHandle } from './agents';
import { startChildWorker, type ChildWorker } from './harness/planner';
import { call, OPERATOR_TOKEN, startChildApi, type ChildApi } from './support/api';
import { DIFF, waitForStatus } from './support/delegated';
import { plannerSuite } from './support/suite';
import { refusingPort } from './support/refusing-port';
import { eventually } from './support/wait';

const suite = plannerSuite('metrics', () => ({}), { workers: false });
let worker: ChildWorker;
let api: ChildApi;
let reviewer: AgentHandle;
let flakySink: Server;
let workerMetrics: string;
let apiMetrics: string;
let sinkCalls = 0;

beforeAll(async () => {
  reviewer = await startCodeReviewer();
  // An alert webhook that refuses the first delivery: the alert fails once, and its retry is sent.
  flakySink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(++sinkCalls === 1 ? 503 : 204).end());
  });
  await new Promise<void>((resolve) => flakySink.listen(0, '127.0.0.1', resolve));
  const [workerPort, apiPort] = await Promise.all([freePort(), freePort()]);
  workerMetrics = `http://127.0.0.1:${workerPort}/metrics`;
  apiMetrics = `http://127.0.0.1:${apiPort}/metrics`;
  worker = await startChildWorker(suite.queue, {
    PLANNER_METRICS_ADDRESS: `127.0.0.1:${workerPort}`,
    PLANNER_METRICS_SAMPLE_MS: '200',
    PLANNER_ALERT_SINKS: 'log,webhook',
    PLANNER_ALERT_WEBHOOK_URL: `http://127.0.0.1:${(flakySink.address() as AddressInfo).port}/alerts`,
  });
  api = await startChildApi(suite.queue, { PLANNER_METRICS_ADDRESS: `127.0.0.1:${apiPort}` });
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await worker?.kill('SIGTERM');
  await reviewer?.close();
  await new Promise((resolve) => flakySink?.close(resolve));
});

/** One sample's value: the metric with every given label (others may be there too), or undefined. */
function valueOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const scrape = async (url: string): Promise<string> => (await fetch(url)).text();

it('a task waiting on a human shows as a wait with its age, an A2A call and an alert (failed once, then sent)', async () => {
  const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
  await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question', 60_000);
  const text = await eventually(
    async () => {
      const t = await scrape(workerMetrics);
      const waits = valueOf(t, 'planner_waits', { waiting_on: 'human' });
      return waits !== undefined && waits >= 1 && (valueOf(t, 'planner_alerts_sent', { kind: 'input', sink: 'webhook' }) ?? 0) >= 1 ? t : undefined;
    },
    'the wait and the alert on the worker metrics',
    60_000,
    250,
  );
  expect(valueOf(text, 'planner_oldest_wait_seconds', { waiting_on: 'human' })).toBeGreaterThan(0);
  expect(valueOf(text, 'planner_waits', { waiting_on: 'operator' })).toBe(0);
  expect(valueOf(text, 'planner_alerts_failed', { kind: 'input', sink: 'webhook' })).toBe(1);
  expect(valueOf(text, 'planner_alerts_sent', { kind: 'input', sink: 'log' })).toBeGreaterThanOrEqual(1);
  // The SDK's own metrics are on the same endpoint.
  expect(text).toMatch(/^temporal_\w+/m);

  await handle.signal('answer', { text: 'main' });
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
  // A send is counted when it ends (a stream may stay open while the agent asks): by now both have.
  const after = await eventually(async () => {
    const t = await scrape(workerMetrics);
    return valueOf(t, 'planner_waits', { waiting_on: 'human' }) === 0 ? t : undefined;
  }, 'the wait gone from the gauge', 60_000, 250);
  const sends = { agent: 'code-reviewer', method: 'SendMessage', outcome: 'ok', taskQueue: suite.queue, activityType: 'sendMessage' };
  expect(valueOf(after, 'planner_a2a_calls', sends)).toBeGreaterThanOrEqual(1);
}, 180_000);

it('an unreachable agent counts its failed calls by outcome, and no call that sent nothing as ok', async () => {
  const closed = await refusingPort();
  try {
    const handle = await suite.start({ agent: { name: 'nobody-home', url: `http://127.0.0.1:${closed.port}` }, message: { text: 'hello?' } });
    const calls = (t: string): string[] => t.split('\n').filter((l) => l.startsWith('planner_a2a_calls{') && l.includes('agent="nobody-home"'));
    const text = await eventually(
      async () => {
        const t = await scrape(workerMetrics);
        return calls(t).some((l) => !l.includes('outcome="ok"')) ? t : undefined;
      },
      'a failed call to nobody-home',
      60_000,
      250,
    );
    await handle.terminate('metrics test done');
    const lines = calls(text);
    expect(lines.every((l) => l.includes('method="SendMessage"'))).toBe(true);
    // The local first attempt found no agent and left the send to its activity: it made no call.
    expect(lines.filter((l) => l.includes('outcome="ok"'))).toEqual([]);
    expect(lines.some((l) => l.includes('outcome="ConnectionError"'))).toBe(true); // the failure named by its type
  } finally {
    await closed.close();
  }
}, 120_000);

it('planner serve counts API requests by route pattern and status on its own endpoint', async () => {
  expect((await call(api.url, 'GET', '/v1/inbox', { token: OPERATOR_TOKEN })).status).toBe(200);
  expect((await call(api.url, 'GET', '/v1/tasks/task-none-such', { token: OPERATOR_TOKEN })).status).toBe(404);
  expect((await call(api.url, 'GET', '/v1/inbox', { token: null })).status).toBe(401);
  const text = await scrape(apiMetrics);
  expect(valueOf(text, 'planner_api_requests', { method: 'GET', route: '/v1/inbox', status: '200' })).toBeGreaterThanOrEqual(1);
  expect(valueOf(text, 'planner_api_requests', { method: 'GET', route: '/v1/tasks/:workflowId', status: '404' })).toBe(1);
  expect(valueOf(text, 'planner_api_requests', { method: 'GET', route: 'other', status: '401' })).toBeGreaterThanOrEqual(1);
  expect(text).not.toContain('task-none-such'); // patterns, never paths
  expect(text).toMatch(/service="a2a-planner-api"/);
});
