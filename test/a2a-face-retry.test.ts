// A first message sent again with the same messageId (a caller that lost the answer) is told the
// task as it is now, on every form: returnImmediately, blocking, and a stream that opens with the
// task as it stands and carries only what follows. Driven at each state of the seed plan; an inline
// webhook on a retry is registered once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client as SdkClient } from '@a2a-js/sdk/client';
import type { RunningServer } from '../server/main';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { call, startApi, TOKEN } from './support/api';
import { sdkClient, sendReq, textOfStatus, userMsg, type Binding } from './support/face-client';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

const WEBHOOK_SECRET = 'webhook-secret-of-the-retry-suite-01';
const suite = plannerSuite('a2a-face-retry', () => ({ PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET }));
let reviewer: AgentHandle;
let deployer: AgentHandle;
let api: RunningServer;
let receiver: { server: Server; url: string };

beforeAll(async () => {
  for (const level of ['error', 'warn'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
  receiver = await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
  process.env.PLANNER_A2A_AGENT_URLS = JSON.stringify({ 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl });
  api = await startApi(suite.client, suite.queue, { PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(async () => {
  delete process.env.PLANNER_A2A_AGENT_URLS;
  await api?.close();
  await Promise.all([reviewer?.close(), deployer?.close(), new Promise((r) => receiver?.server.close(r))]);
  jest.restoreAllMocks();
});

type Msg = ReturnType<typeof userMsg>;
const stateOf = (f: StreamResponse): TaskState | undefined =>
  f.payload?.$case === 'statusUpdate' ? f.payload.value.status?.state : f.payload?.$case === 'task' ? f.payload.value.status?.state : undefined;
const statusIdOf = (f: StreamResponse): string | undefined =>
  f.payload?.$case === 'statusUpdate' ? f.payload.value.status?.message?.messageId : f.payload?.$case === 'task' ? f.payload.value.status?.message?.messageId : undefined;

/** The first message again, as returnImmediately, blocking, and a stream read to its close (or its first `take` frames). */
async function retries(client: SdkClient, msg: Msg, take = Infinity): Promise<{ immediate: Task; blocking: Task; streamed: StreamResponse[] }> {
  const immediate = (await client.sendMessage(sendReq(msg, { returnImmediately: true }))) as Task;
  const blocking = (await client.sendMessage(sendReq(msg))) as Task;
  const streamed: StreamResponse[] = [];
  const ac = new AbortController();
  for await (const f of client.sendMessageStream(sendReq(msg), { signal: ac.signal })) {
    streamed.push(f);
    if (streamed.length >= take) break;
  }
  ac.abort();
  return { immediate, blocking, streamed };
}

/** The seed plan answered up to its approval: the first message, and the deployer's approval URL. */
async function toApproval(client: SdkClient, msg: Msg): Promise<{ task: Task; approveUrl: string }> {
  const first = (await client.sendMessage(sendReq(msg))) as Task;
  suite.track(first.id, `${first.id}.review`);
  expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const approval = (await client.sendMessage(sendReq(userMsg('main', { taskId: first.id, contextId: first.contextId })))) as Task;
  suite.track(`${first.id}.deploy`);
  expect(approval.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
  return { task: first, approveUrl: /https?:\/\/\S+\/approve\/[0-9a-f-]+/.exec(textOfStatus(approval))![0] };
}

describe.each(['JSONRPC', 'HTTP+JSON'] as Binding[])('a retried first message over %s', (binding) => {
  it('at SUBMITTED: the real task first, each status once, closed at the question', async () => {
    const client = await sdkClient(api.url, binding);
    const msg = userMsg('Release payments-api');
    const submitted = (await client.sendMessage(sendReq(msg, { returnImmediately: true }))) as Task;
    suite.track(submitted.id, `${submitted.id}.review`);
    expect(submitted.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const streamed: StreamResponse[] = [];
    for await (const f of client.sendMessageStream(sendReq(msg))) streamed.push(f);
    expect(streamed[0]!.payload?.$case).toBe('task');
    expect((streamed[0]!.payload!.value as Task).id).toBe(submitted.id);
    expect(stateOf(streamed.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const ids = streamed.slice(1).map(statusIdOf);
    expect(new Set(ids).size).toBe(ids.length);
    const now = await client.getTask({ tenant: '', id: submitted.id, historyLength: undefined });
    const { immediate, blocking } = await retries(client, msg, 1);
    expect(immediate.status).toEqual(now.status);
    expect(blocking.status).toEqual(now.status);
    expect(textOfStatus(blocking)).toContain(BASE_BRANCH_QUESTION);
    await client.cancelTask({ tenant: '', id: submitted.id, metadata: undefined });
  });

  it('at INPUT_REQUIRED: the question as it stands, on every form, and the stream closes there', async () => {
    const client = await sdkClient(api.url, binding);
    const msg = userMsg('Release payments-api');
    const first = (await client.sendMessage(sendReq(msg))) as Task;
    suite.track(first.id, `${first.id}.review`);
    const { immediate, blocking, streamed } = await retries(client, msg);
    for (const t of [immediate, blocking]) expect(t.status).toEqual(first.status);
    expect(streamed.map((f) => f.payload?.$case)).toEqual(['task']);
    expect((streamed[0]!.payload!.value as Task).status).toEqual(first.status);
    await client.cancelTask({ tenant: '', id: first.id, metadata: undefined });
  });

  it('at AUTH_REQUIRED: the approval, not the answered question; the stream carries only what follows it', async () => {
    const client = await sdkClient(api.url, binding);
    const msg = userMsg('Release payments-api');
    const { task, approveUrl } = await toApproval(client, msg);
    const { immediate, blocking } = await retries(client, msg, 1);
    expect(immediate.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    expect(blocking.status).toEqual(immediate.status);
    // The retried stream: the task at its approval first, then, once approved, only the statuses after it.
    const frames: StreamResponse[] = [];
    const stream = client.sendMessageStream(sendReq(msg));
    const opening = await stream.next();
    frames.push(opening.value as StreamResponse);
    expect(stateOf(frames[0]!)).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const rest = (async () => {
      for await (const f of stream) frames.push(f);
    })();
    expect((await fetch(approveUrl, { method: 'POST' })).ok).toBe(true);
    await rest;
    const later = frames.slice(1).map(stateOf).filter((s) => s !== undefined);
    expect(later.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(later).not.toContain(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(later).not.toContain(TaskState.TASK_STATE_AUTH_REQUIRED);
    expect(later).not.toContain(TaskState.TASK_STATE_SUBMITTED);
    void task;
  });

  it('at COMPLETED: the completed task on every form, the stream one frame', async () => {
    const client = await sdkClient(api.url, binding);
    const msg = userMsg('Release payments-api');
    const { task, approveUrl } = await toApproval(client, msg);
    expect((await fetch(approveUrl, { method: 'POST' })).ok).toBe(true);
    await suite.client.workflow.getHandle(task.id).result();
    const { immediate, blocking, streamed } = await retries(client, msg);
    expect(immediate.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(blocking.status).toEqual(immediate.status);
    expect(streamed.map(stateOf)).toEqual([TaskState.TASK_STATE_COMPLETED]);
    expect(streamed[0]!.payload?.$case).toBe('task');
  });
});

it('a retry of a plan no worker has run yet is told SUBMITTED at once, on every form, not after a wait for a worker', async () => {
  const lonely = await startApi(suite.client, `${suite.queue}-no-worker`, { PLANNER_WEBHOOK_SECRET: WEBHOOK_SECRET });
  try {
    const client = await sdkClient(lonely.url, 'JSONRPC');
    const msg = userMsg('Release payments-api');
    const first = (await client.sendMessage(sendReq(msg, { returnImmediately: true }))) as Task;
    // Each form answers within a bound far below the face's wait for a worker (15 s): a hang guard, not a timing.
    const signal = () => AbortSignal.timeout(8000);
    const again = (await client.sendMessage(sendReq(msg, { returnImmediately: true }), { signal: signal() })) as Task;
    expect(again.id).toBe(first.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const stream = client.sendMessageStream(sendReq(msg), { signal: signal() });
    const opening = (await stream.next()).value as StreamResponse;
    expect(opening.payload?.$case).toBe('task');
    expect((opening.payload!.value as Task).status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    await stream.return(undefined);
    // ListTasks does not wait long on a plan no worker answers for: it lists it as visibility knows it.
    const listed = await eventually(async () => {
      const page = await client.listTasks(
        { tenant: '', contextId: first.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 10, pageToken: '', historyLength: 0, statusTimestampAfter: undefined, includeArtifacts: false },
        { signal: signal() },
      );
      return page.tasks.length > 0 && page.tasks;
    }, 'the stuck plan listed');
    expect(listed.map((t) => [t.id, t.status?.state])).toEqual([[first.id, TaskState.TASK_STATE_SUBMITTED]]);
    await suite.client.workflow.getHandle(first.id).terminate('no worker ever ran it');
  } finally {
    await lonely.close();
  }
});

it('an inline webhook on a retried first message is registered, once', async () => {
  const rpc = async (method: string, params: object) =>
    (await call(api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: { 'a2a-version': '1.0' }, token: TOKEN })).body as { result?: Record<string, unknown>; error?: unknown };
  const message = { messageId: `retry-push-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'Release payments-api' }], metadata: { skill: 'release' } };
  const first = (await rpc('SendMessage', { message, configuration: { returnImmediately: true } })).result!.task as Task;
  suite.track(first.id, `${first.id}.review`);
  const push = { url: `${receiver.url}/retry`, token: 'token-of-the-retry' };
  for (let i = 0; i < 2; i++) {
    const again = await rpc('SendMessage', { message, configuration: { returnImmediately: true, taskPushNotificationConfig: push } });
    expect(again.error).toBeUndefined();
  }
  const listed = (await rpc('ListTaskPushNotificationConfigs', { taskId: first.id })).result as { configs: Array<{ url: string; token: string }> };
  expect(listed.configs.map((c) => [c.url, c.token])).toEqual([[push.url, push.token]]);
  await rpc('CancelTask', { id: first.id });
});

itReplaysItsHistories(suite);
