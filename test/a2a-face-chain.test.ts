// Durability of the A2A face across hops and processes: two planners on one dev server (separate
// task queues, workers and servers), A delegating to B as a remote A2A agent; and the face's
// server process restarted in the middle of a wait.
import { randomUUID } from 'node:crypto';
import type { RunningServer } from '../server/main';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { startWorkers, uniqueQueue, type RunningWorkers } from './harness/planner';
import { call, startApi, startChildApi, TOKEN } from './support/api';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

// Planner A: the suite's workers and client. Planner B: a second worker set on its own queue.
const suite = plannerSuite('a2a-chain');
const queueB = uniqueQueue('a2a-chain-b');
let workersB: RunningWorkers;
let reviewer: AgentHandle;
let deployer: AgentHandle;
let apiA: RunningServer;
let apiB: RunningServer;

beforeAll(async () => {
  for (const level of ['error', 'warn'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
  workersB = await startWorkers(queueB);
  apiB = await startApi(suite.client, queueB);
  // Planner B is one of A's operator's agents: callers of A name it, and A's credential for it travels.
  apiA = await startApi(suite.client, suite.queue, { PLANNER_AGENTS: JSON.stringify({ 'planner-b': apiB.url }) });
  // Planner A's delegated-task client sends the bearer token to planner B (read by agent name, never in
  // history), and only to B's origin.
  process.env.A2A_AGENT_CREDENTIALS = JSON.stringify({ 'planner-b': { bearer: TOKEN, origins: [new URL(apiB.url).origin] } });
});
afterAll(async () => {
  await Promise.all([apiA?.close(), apiB?.close()]);
  await workersB?.stop();
  await Promise.all([reviewer?.close(), deployer?.close()]);
  delete process.env.A2A_AGENT_CREDENTIALS;
  jest.restoreAllMocks();
});

interface WireTask {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: Array<{ text?: string }> } };
  artifacts?: Array<{ name?: string }>;
  history?: Array<{ role: string }>;
}
const rpc = async (base: string, method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }> =>
  (await call(base, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: { 'a2a-version': '1.0' } })).body as never;
const taskOf = (r: { result?: unknown; error?: unknown }): WireTask => {
  if (!r.result) throw new Error(`expected a result, got ${JSON.stringify(r.error)}`);
  const x = r.result as { task?: WireTask };
  return x.task ?? (r.result as WireTask);
};
const statusText = (t: WireTask): string => (t.status.message?.parts ?? []).map((p) => p.text ?? '').join('');
const approvalUrl = (t: WireTask): string => {
  const url = /https?:\/\/\S+?\/approve\/[0-9a-f-]+/.exec(statusText(t))?.[0];
  if (!url) throw new Error(`no approval URL in ${statusText(t)}`);
  return url;
};

/** Reads SSE frames (JSON-RPC envelopes) from a POST, until the server closes or `stop` aborts. */
async function openStream(base: string, method: string, params: unknown, stop: AbortSignal): Promise<{ frames: unknown[]; closed: Promise<void> }> {
  const res = await fetch(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'a2a-version': '1.0', 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }),
    signal: stop,
  });
  if (!res.headers.get('content-type')?.includes('text/event-stream')) throw new Error(`not a stream: ${await res.text()}`);
  const frames: unknown[] = [];
  const closed = (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
        if (data) frames.push((JSON.parse(data) as { result: unknown }).result);
      }
    }
  })().catch(() => undefined);
  return { frames, closed };
}
const frameState = (f: unknown): string | undefined => {
  const x = f as { task?: WireTask; statusUpdate?: { status: { state: string } } };
  return x.task?.status.state ?? x.statusUpdate?.status.state;
};

const releasePlan = () => ({
  name: 'release-b',
  agents: { 'code-reviewer': { url: reviewer.baseUrl }, deployer: { url: deployer.baseUrl } },
  steps: [
    { id: 'review', agent: 'code-reviewer', text: 'Please review this diff:\n+const refund = amount > 0;' },
    { id: 'deploy', agent: 'deployer', dependsOn: ['review'], text: 'Deploy build 7 to staging.' },
  ],
});

describe('a chain of two planners', () => {
  it("B's reviewer question and deployer approval surface on A's task; the answer and the approval reach them; A completes", async () => {
    const planA = {
      name: 'delegate-to-b',
      agents: { 'planner-b': {} },
      steps: [{ id: 'release', agent: 'planner-b', text: 'Run the release plan', data: { plan: releasePlan() } }],
    };
    const first = taskOf(await rpc(apiA.url, 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'release through B' }, { data: { plan: planA } }] } }));
    suite.track(first.id, `${first.id}.release`);
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(statusText(first)).toContain(BASE_BRANCH_QUESTION);
    expect(statusText(first)).toContain('agent planner-b');

    // B's own task (the one A's step delegated to) asks the same question, naming the reviewer. (Both
    // servers share a namespace and a token with every suite running beside this one, so B lists A's
    // task and other suites' questions too: B's own is the one whose steps wrote to this suite's reviewer.)
    const heardFrom = (t: WireTask) => reviewer.log.userMessages.some((m) => m.messageId.startsWith(`${t.id}.`));
    const listedB = taskOf({ result: ((await rpc(apiB.url, 'ListTasks', { pageSize: 100 })).result as { tasks: WireTask[] }).tasks.find((t) => t.id !== first.id && heardFrom(t)) });
    expect(statusText(listedB)).toContain(BASE_BRANCH_QUESTION);
    expect(listedB.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(statusText(listedB)).toContain('agent code-reviewer');

    const afterAnswer = taskOf(await rpc(apiA.url, 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'main' }], taskId: first.id, contextId: first.contextId } }));
    expect(afterAnswer.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(statusText(afterAnswer)).toContain('An operator must approve this deploy at');
    expect(statusText(afterAnswer)).toContain('agent planner-b');

    // The answer reached the reviewer, through A's step and B's task.
    const toReviewer = reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${listedB.id}.`));
    expect(toReviewer.map((m) => m.text.split('\n')[0])).toEqual(['Please review this diff:', 'main']);

    const stop = new AbortController();
    const stream = await openStream(apiA.url, 'SubscribeToTask', { id: first.id }, stop.signal);
    await eventually(() => stream.frames.length > 0, "A's snapshot frame");
    const res = await fetch(approvalUrl(afterAnswer), { method: 'POST' });
    expect(res.ok).toBe(true);
    await stream.closed;
    expect(frameState(stream.frames.at(-1))).toBe('TASK_STATE_COMPLETED');

    const done = taskOf(await rpc(apiA.url, 'GetTask', { id: first.id }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const doneB = taskOf(await rpc(apiB.url, 'GetTask', { id: listedB.id }));
    expect(doneB.status.state).toBe('TASK_STATE_COMPLETED');
    expect((doneB.artifacts ?? []).map((a) => a.name).sort()).toEqual(['deploy-result.json', 'review.json']);
    // Each agent saw exactly its messages: the reviewer the diff and "main", the deployer one request.
    expect(reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${listedB.id}.`))).toHaveLength(2);
    expect(deployer.log.userMessages.filter((m) => m.messageId.startsWith(`${listedB.id}.`))).toHaveLength(1);
    // B saw the step's first message and the relayed answer, from A's step.
    const userB = (doneB.history ?? []).filter((m) => m.role === 'ROLE_USER');
    expect(userB).toHaveLength(2);
    suite.track(`${listedB.id}`, `${listedB.id}.review`, `${listedB.id}.deploy`);
  });
});

describe('the face restarted during a wait', () => {
  it('GetTask and a new SubscribeToTask work from the new process, and the stream delivers the resume', async () => {
    const plan = { name: 'deploy-only', agents: { deployer: { url: deployer.baseUrl } }, steps: [{ id: 'deploy', agent: 'deployer', text: 'Deploy build 9 to staging.' }] };
    const one = await startChildApi(suite.queue);
    let task: WireTask;
    try {
      task = taskOf(await rpc(one.url, 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'deploy' }, { data: { plan } }] } }));
      suite.track(task.id, `${task.id}.deploy`);
      expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      const stop = new AbortController();
      const old = await openStream(one.url, 'SubscribeToTask', { id: task.id }, stop.signal);
      await eventually(() => old.frames.length > 0, 'the first process\'s snapshot');
    } finally {
      await one.stop();
    }
    const two = await startChildApi(suite.queue);
    try {
      const again = taskOf(await rpc(two.url, 'GetTask', { id: task.id }));
      expect(again.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      const stop = new AbortController();
      const stream = await openStream(two.url, 'SubscribeToTask', { id: task.id }, stop.signal);
      await eventually(() => stream.frames.length > 0, 'the snapshot from the new process');
      expect(frameState(stream.frames[0])).toBe('TASK_STATE_AUTH_REQUIRED');
      await fetch(approvalUrl(again), { method: 'POST' });
      await stream.closed;
      expect(frameState(stream.frames.at(-1))).toBe('TASK_STATE_COMPLETED');
    } finally {
      await two.stop();
    }
  });
});

itReplaysItsHistories(suite);
