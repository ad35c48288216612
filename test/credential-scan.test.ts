// No credential leaves the places it belongs. Scenarios carrying every kind of secret the planner
// handles run through a real worker and a real API server (child processes, logging at debug):
// agent credentials from A2A_AGENT_CREDENTIALS (a bearer token and an API key), the API token, the
// push webhook secret, an alert webhook whose path is a secret, and agent URLs with user:pass@ that
// must be refused. Then every workflow the suite's queue ran is scanned: every history event with
// its payloads decoded through the claim-check codec, the memo, search attributes, summary and
// details, current details, the alerts delivered, and every log line of both processes.
import type { ChildProcess } from 'node:child_process';
import type { Payload } from '@temporalio/common';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { answerTask, InvalidInputError, startDelegatedTask } from '../client/delegated-task';
import { startChildWorker, testDataConverter, type ChildWorker } from './harness/planner';
import { call, startChildApi, type ChildApi } from './support/api';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { RELEASE_PLAN } from './support/plans';
import { plannerSuite } from './support/suite';
import { eventually } from './support/wait';

const REVIEWER_TOKEN = 'agentBearerReviewer-7f3a9c1e5d';
const DEPLOYER_KEY = 'agentApiKeyDeployer-2b8e4d6f0a';
const API_TOKEN = 'apiTokenForTheScan-9c1d3e5f7a2b';
const PUSH_SECRET = 'pushWebhookSecret-4e6a8c0b2d';
const ALERT_PATH_SECRET = 'alertPathSecret-1a3c5e7b9d';
const URL_PASSWORD = 'urlPassword-8d0f2b4c6e';
const SECRETS = { REVIEWER_TOKEN, DEPLOYER_KEY, API_TOKEN, PUSH_SECRET, ALERT_PATH_SECRET, URL_PASSWORD };

let reviewer: AgentHandle;
let deployer: AgentHandle;
let worker: ChildWorker;
let api: ChildApi;
const logs: string[] = [];

const suite = plannerSuite('credential-scan', () => ({}), { workers: false });

/** Every byte a child writes from now on (output() keeps only the start-up tail). */
function capture(child: ChildProcess, startup: string): void {
  logs.push(startup);
  child.stdout!.on('data', (b: Buffer) => logs.push(b.toString()));
  child.stderr!.on('data', (b: Buffer) => logs.push(b.toString()));
}

beforeAll(async () => {
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
  const env = {
    A2A_AGENT_CREDENTIALS: JSON.stringify({
      'code-reviewer': { bearer: REVIEWER_TOKEN, origins: [new URL(reviewer.baseUrl).origin] },
      deployer: { apiKey: { header: 'X-Api-Key', value: DEPLOYER_KEY }, origins: [new URL(deployer.baseUrl).origin] },
    }),
    // The API's plan names these registered agents, so their credentials travel (and are scanned for).
    PLANNER_AGENTS: JSON.stringify({ 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl }),
    PLANNER_API_TOKEN: API_TOKEN,
    PLANNER_WEBHOOK_BASE_URL: 'http://127.0.0.1:1',
    PLANNER_WEBHOOK_SECRET: PUSH_SECRET,
    PLANNER_ALERT_SINKS: 'webhook,log',
    PLANNER_ALERT_WEBHOOK_URL: `${suite.sink.url}/T000/B000/${ALERT_PATH_SECRET}`,
    PLANNER_LOG_LEVEL: 'debug',
    PLANNER_LOG_FORMAT: 'json',
  };
  worker = await startChildWorker(suite.queue, env);
  capture(worker.child, worker.output());
  api = await startChildApi(suite.queue, env);
  capture(api.child, api.output());
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await worker?.kill('SIGTERM');
  await Promise.all([reviewer?.close(), deployer?.close()]);
});

interface PlanView {
  workflowStatus: string;
  steps: Array<{ id: string; waitingOn: string; taskId?: string }>;
}

const authed = { token: API_TOKEN };
const releasePlan = (): Record<string, unknown> => parseYaml(readFileSync(RELEASE_PLAN, 'utf8')) as Record<string, unknown>;

it('runs a plan over the API: question, answer, approval, alerts on the secret webhook', async () => {
  const started = await call(api.url, 'POST', '/v1/plans', {
    ...authed,
    body: { plan: { ...releasePlan(), agents: { 'code-reviewer': {}, deployer: {} } } },
  });
  expect(started.status).toBe(201);
  const { planId } = started.body as { planId: string };
  const view = async (): Promise<PlanView> => (await call(api.url, 'GET', `/v1/plans/${planId}`, authed)).body as PlanView;
  await eventually(async () => (await view()).steps.find((s) => s.id === 'review')?.waitingOn === 'human', 'the review question', 30_000);
  expect((await call(api.url, 'POST', `/v1/plans/${planId}/steps/review/answer`, { ...authed, body: { text: 'main' } })).status).toBe(200);
  const deploy = await eventually(async () => (await view()).steps.find((s) => s.id === 'deploy' && s.waitingOn === 'operator'), 'the approval', 30_000);
  await deployer.approve(deploy.taskId!);
  await eventually(async () => (await view()).workflowStatus === 'COMPLETED', 'the plan to complete', 30_000);
  expect(suite.sink.alerts.filter((a) => a.body.planId === planId).map((a) => a.body.kind).sort()).toEqual(['auth', 'input']);
  // The credentials did travel, each to its own agent only.
  expect(reviewer.log.received.some((r) => r.headers.authorization === `Bearer ${REVIEWER_TOKEN}`)).toBe(true);
  expect(deployer.log.received.some((r) => r.headers['x-api-key'] === DEPLOYER_KEY)).toBe(true);
  expect(deployer.log.received.some((r) => r.headers.authorization !== undefined)).toBe(false);
}, 90_000);

it('runs a delegated task with a question, answered', async () => {
  const handle = await startDelegatedTask(suite.client, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: 'Please review: +x' } }, { taskQueue: suite.queue });
  await eventually(() => suite.sink.forWorkflow(handle.workflowId).some((a) => a.body.text === BASE_BRANCH_QUESTION), 'the question alert', 30_000);
  await eventually(async () => (await answerTask(suite.client, handle.workflowId, { text: 'main' })).turn >= 1, 'the answer accepted', 10_000);
  await handle.result();
}, 60_000);

it('refuses agent URLs with user:pass@, over the API and from a client, without repeating the password', async () => {
  const url = `http://ops:${URL_PASSWORD}@127.0.0.1:${reviewer.port}/`;
  const plan = { name: 'leaky', agents: { r: { url } }, steps: [{ id: 's', agent: 'r', text: 'hi' }] };
  const refused = await call(api.url, 'POST', '/v1/plans', { ...authed, body: { plan } });
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('user:password@');
  expect(refused.text).not.toContain(URL_PASSWORD);
  const e = await startDelegatedTask(suite.client, { agent: { name: 'r', url }, message: { text: 'hi' } }, { taskQueue: suite.queue }).catch((err: unknown) => err as Error);
  expect(e).toBeInstanceOf(InvalidInputError);
  expect((e as Error).message).not.toContain(URL_PASSWORD);
});

/** Every string reachable in `v`, bytes decoded as UTF-8, payloads also through the codec. */
async function texts(v: unknown, out: string[], seen = new Set<unknown>()): Promise<void> {
  if (v === null || v === undefined) return;
  if (typeof v === 'string') return void out.push(v);
  if (typeof v !== 'object' || seen.has(v)) return;
  seen.add(v);
  if (v instanceof Uint8Array) return void out.push(Buffer.from(v).toString('utf8'));
  const rec = v as Record<string, unknown>;
  if (rec.metadata !== undefined && rec.data instanceof Uint8Array) {
    const [decoded] = await testDataConverter().payloadCodecs![0]!.decode([rec as Payload]);
    if (decoded?.data) out.push(Buffer.from(decoded.data).toString('utf8'));
  }
  for (const x of Object.values(rec)) await texts(x, out, seen);
}

it('leaves no secret in any history, memo, search attribute, summary, details, alert or log line', async () => {
  // The plan, its two steps and the delegated task; the refused ones never started.
  const ids = await eventually(async () => {
    const found: string[] = [];
    for await (const w of suite.client.workflow.list({ query: `TaskQueue = "${suite.queue}"` })) found.push(w.workflowId);
    return found.length >= 4 ? found : undefined;
  }, 'the suite\'s workflows in visibility', 20_000);
  expect(ids).toHaveLength(4);
  const haystack: Array<{ where: string; text: string }> = [];
  let events = 0;
  for (const id of ids) {
    const handle = suite.client.workflow.getHandle(id);
    const history = await handle.fetchHistory();
    events += history.events?.length ?? 0;
    const found: string[] = [];
    await texts(history, found);
    const desc = await handle.describe();
    await texts({ memo: desc.memo, sa: desc.searchAttributes, typed: desc.typedSearchAttributes, raw: desc.raw }, found);
    const metadata = await handle.query<unknown>('__temporal_workflow_metadata');
    await texts(metadata, found);
    haystack.push({ where: `workflow ${id}`, text: found.join('\n') });
  }
  haystack.push({ where: 'alerts', text: JSON.stringify(suite.sink.alerts) });
  haystack.push({ where: 'worker and server logs', text: logs.join('') });
  // The scan saw what it should: events, decoded inputs, current details, alerts and log lines.
  expect(events).toBeGreaterThan(40);
  expect(haystack.some((h) => h.text.includes('Please review'))).toBe(true);
  expect(haystack.some((h) => h.text.includes(BASE_BRANCH_QUESTION))).toBe(true);
  expect(logs.join('').split('\n').filter((l) => l.trim() !== '').length).toBeGreaterThan(10);
  const leaks = haystack.flatMap((h) => Object.entries(SECRETS).filter(([, s]) => h.text.includes(s)).map(([name]) => `${name} in ${h.where}`));
  expect(leaks).toEqual([]);
});
