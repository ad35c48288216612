// A chain that changes protocol version on the way down: a caller speaks A2A v1.0 to planner A, and
// A speaks v0.3 to planner B (its agent `planner-b03`, forced to v0.3 though B's card offers both).
// B's reviewer question and deployer approval reach the caller on A's task; the answer goes back
// down over v0.3; every request A made to B was a v0.3 method.
import { randomUUID } from 'node:crypto';
import type { RunningServer } from '../server/main';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { startWorkers, uniqueQueue, type RunningWorkers } from './harness/planner';
import { call, startApi, TOKEN } from './support/api';
import { startCuttingProxy, type CuttingProxy } from './support/cutting-proxy';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

const suite = plannerSuite('a2a-chain-v03');
const queueB = uniqueQueue('a2a-chain-v03-b');
let workersB: RunningWorkers;
let reviewer: AgentHandle;
let deployer: AgentHandle;
let apiA: RunningServer;
let apiB: RunningServer;
/** In front of B: records what A sends it. */
let toB: CuttingProxy;

beforeAll(async () => {
  for (const level of ['error', 'warn'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
  workersB = await startWorkers(queueB);
  apiB = await startApi(suite.client, queueB);
  toB = await startCuttingProxy(apiB.url);
  toB.delay(() => true, 0); // hold nothing; record every request's A2A method
  apiA = await startApi(suite.client, suite.queue, { PLANNER_AGENTS: JSON.stringify({ 'planner-b03': toB.baseUrl }) });
  process.env.A2A_AGENT_CREDENTIALS = JSON.stringify({ 'planner-b03': { bearer: TOKEN, origins: [new URL(toB.baseUrl).origin] } });
});
afterAll(async () => {
  await Promise.all([apiA?.close(), apiB?.close(), toB?.close()]);
  await workersB?.stop();
  await Promise.all([reviewer?.close(), deployer?.close()]);
  delete process.env.A2A_AGENT_CREDENTIALS;
  jest.restoreAllMocks();
});

interface WireTask {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: Array<{ text?: string }> } };
}
const rpc = async (method: string, params: unknown): Promise<WireTask> => {
  const r = (await call(apiA.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: { 'a2a-version': '1.0' } })).body as { result?: { task?: WireTask } & WireTask; error?: unknown };
  if (!r.result) throw new Error(`expected a result, got ${JSON.stringify(r.error)}`);
  return r.result.task ?? r.result;
};
const statusText = (t: WireTask): string => (t.status.message?.parts ?? []).map((p) => p.text ?? '').join('');

it('v1.0 upstream, v0.3 downstream: the question and the approval surface on A, the answer goes down, A completes', async () => {
  const release = {
    name: 'release-b',
    agents: { 'code-reviewer': { url: reviewer.baseUrl }, deployer: { url: deployer.baseUrl } },
    steps: [
      { id: 'review', agent: 'code-reviewer', text: 'Please review this diff:\n+const refund = amount > 0;' },
      { id: 'deploy', agent: 'deployer', dependsOn: ['review'], text: 'Deploy build 7 to staging.' },
    ],
  };
  const planA = {
    name: 'delegate-to-b-over-v03',
    agents: { 'planner-b03': { a2aVersion: '0.3' } },
    steps: [{ id: 'release', agent: 'planner-b03', text: 'Run the release plan', data: { plan: release } }],
  };
  const first = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'release through B' }, { data: { plan: planA } }] } });
  suite.track(first.id, `${first.id}.release`);
  expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  expect(statusText(first)).toContain(BASE_BRANCH_QUESTION);

  const afterAnswer = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'main' }], taskId: first.id, contextId: first.contextId } });
  expect(afterAnswer.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
  // The answer reached the reviewer through A's step and B's task, once.
  expect(reviewer.log.userMessages.filter((m) => m.text === 'main')).toHaveLength(1);

  const url = /https?:\/\/\S+?\/approve\/[0-9a-f-]+/.exec(statusText(afterAnswer))?.[0];
  expect(url).toBeDefined();
  expect((await fetch(url!, { method: 'POST' })).ok).toBe(true);
  await eventually(async () => (await rpc('GetTask', { id: first.id })).status.state === 'TASK_STATE_COMPLETED', "A's task completed", 60_000);

  // Every request A made to B was a v0.3 method (JSON-RPC: message/send, tasks/get, tasks/resubscribe, ...).
  const methods = [...new Set(toB.delayed.map((d) => d.method).filter((m) => m !== ''))];
  expect(methods.length).toBeGreaterThan(0);
  expect(methods.every((m) => m.includes('/'))).toBe(true);
  expect(methods).toContain(methods.find((m) => m.startsWith('message/')));
});

itReplaysItsHistories(suite);
