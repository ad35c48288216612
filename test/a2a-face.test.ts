// The planner's A2A face (server/face/) over real HTTP, driven by @a2a-js/sdk's client over both
// bindings: the seed plan's question and approval relayed on the planner's own task, the answer
// routed to the reviewer, one SubscribeToTask stream carrying everything after the approval; a
// subscriber that adds no events; and each protocol error from a real request.
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer } from './agents';
import { call, TOKEN } from './support/api';
import { faceWithAgents, sdkClient as faceClient, sendReq, textOfStatus, userMsg, type Binding } from './support/face-client';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';
import { contextIdFor, taskIdFor } from '../server/face/tasks';
import { principalOf } from '../server/auth';

const suite = plannerSuite('a2a-face');
const face = faceWithAgents(suite, () => Promise.all([startCodeReviewer(), startDeployer()]));

const sdkClient = (binding: Binding) => faceClient(face.api.url, binding);

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('the seed plan through the face over %s', (binding) => {
  it('asks the reviewer question, takes the answer, relays the approval, completes on one stream', async () => {
    const client = await sdkClient(binding);
    const first = (await client.sendMessage(sendReq(userMsg('Release payments-api')))) as Task;
    expect(first.id).toMatch(/^a2a-/);
    suite.track(first.id);
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = textOfStatus(first);
    expect(asked).toContain(BASE_BRANCH_QUESTION);
    expect(asked).toContain('agent code-reviewer');
    expect(asked).toMatch(/its task [0-9a-f-]{36}/);

    // The answer on the same ids moves it on; the blocking call returns at the approval.
    const approval = (await client.sendMessage(sendReq(userMsg('main', { taskId: first.id, contextId: first.contextId })))) as Task;
    expect(approval.id).toBe(first.id);
    expect(approval.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const url = /https?:\/\/\S+\/approve\/[0-9a-f-]+/.exec(textOfStatus(approval))?.[0];
    expect(url).toBeDefined();
    expect(textOfStatus(approval)).toContain('agent deployer');
    // The reviewer saw the diff and the answer, nothing else.
    const toReviewer = face.reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${first.id}.`));
    expect(toReviewer.map((m) => m.text.split('\n')[0])).toEqual(['Please review this diff of payments-api:', 'main']);

    // Subscribe first, approve out of band second: every later frame arrives on this stream.
    const frames: StreamResponse[] = [];
    const stream = client.resubscribeTask({ tenant: '', id: first.id });
    const firstFrame = await stream.next();
    expect(firstFrame.value?.payload?.$case).toBe('task');
    frames.push(firstFrame.value as StreamResponse);
    const rest = (async () => {
      for await (const f of stream) frames.push(f);
    })();
    const res = await fetch(url!, { method: 'POST' });
    expect(res.ok).toBe(true);
    await rest; // the stream closes by itself at the terminal state
    const states = frames.flatMap((f) => (f.payload?.$case === 'statusUpdate' ? [f.payload.value.status?.state] : []));
    // The deploy resumes: WORKING before COMPLETED on the stream, even when the plan sees the step resume and end at once.
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(states.slice(0, -1)).toContain(TaskState.TASK_STATE_WORKING);
    expect(states.filter((s) => s === TaskState.TASK_STATE_AUTH_REQUIRED || s === TaskState.TASK_STATE_INPUT_REQUIRED)).toEqual([]);
    const artifactNames = frames.flatMap((f) => (f.payload?.$case === 'artifactUpdate' ? [f.payload.value.artifact?.name] : []));
    expect(artifactNames).toEqual(['deploy-result.json']);

    const done = await client.getTask({ tenant: '', id: first.id, historyLength: undefined });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((done.artifacts ?? []).map((a) => a.name).sort()).toEqual(['deploy-result.json', 'review.json']);
    // History: the upstream's two messages and the planner's status messages, in order.
    const roles = (done.history ?? []).map((m) => m.role);
    // Each wait ended in WORKING: after the answer and after the approval.
    const recorded = (done.history ?? []).flatMap((m) => (m.role === Role.ROLE_AGENT ? [String((m.metadata as { state?: string } | undefined)?.state)] : []));
    const changes = recorded.filter((st, i) => st !== recorded[i - 1]);
    expect(changes.slice(-5)).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(roles[0]).toBe(Role.ROLE_USER);
    expect(roles.filter((r) => r === Role.ROLE_USER)).toHaveLength(2);
    const short = await client.getTask({ tenant: '', id: first.id, historyLength: 1 });
    expect(short.history).toHaveLength(1);
    // The deployer got exactly one message.
    expect(face.deployer.log.userMessages.filter((m) => m.messageId.startsWith(`${first.id}.`))).toHaveLength(1);
    suite.track(`${first.id}.review`, `${first.id}.deploy`);
  });
});

describe('the task of a message', () => {
  it('returnImmediately gives SUBMITTED; a retry with the same messageId gives the same task and no second plan', async () => {
    const client = await sdkClient('JSONRPC');
    const msg = userMsg('Release payments-api');
    const submitted = (await client.sendMessage(sendReq(msg, { returnImmediately: true }))) as Task;
    expect(submitted.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    suite.track(submitted.id);
    const again = (await client.sendMessage(sendReq(msg))) as Task;
    expect(again.id).toBe(submitted.id);
    expect(again.contextId).toBe(submitted.contextId);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const plans = await suite.client.workflow.count(`WorkflowId = '${submitted.id}'`);
    expect(plans.count).toBe(1);
    // Listed by its context, with its state.
    const listed = await client.listTasks({ tenant: '', contextId: submitted.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 10, pageToken: '', historyLength: 0, statusTimestampAfter: undefined, includeArtifacts: false });
    expect(listed.tasks.map((t) => t.id)).toEqual([submitted.id]);
    expect(listed.tasks[0]!.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const byState = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_COMPLETED, pageSize: 100, pageToken: '', historyLength: 0, statusTimestampAfter: undefined, includeArtifacts: false });
    expect(byState.tasks.map((t) => t.id)).not.toContain(submitted.id);

    // A subscriber held through the wait adds no events to the plan's history.
    const before = (await suite.client.workflow.getHandle(submitted.id).fetchHistory()).events!.length;
    const ac = new AbortController();
    const frames: StreamResponse[] = [];
    const held = (async () => {
      for await (const f of client.resubscribeTask({ tenant: '', id: submitted.id }, { signal: ac.signal })) frames.push(f);
    })().catch(() => undefined);
    await eventually(() => frames.length > 0, 'the snapshot frame');
    await new Promise((r) => setTimeout(r, 3000));
    const after = (await suite.client.workflow.getHandle(submitted.id).fetchHistory()).events!.length;
    expect(after).toBe(before);
    expect(frames).toHaveLength(1); // the snapshot, and nothing since: nothing moved
    ac.abort();
    await held;

    // CancelTask cancels the plan and, through it, the reviewer's task; a second cancel is -32002.
    const cancelled = await client.cancelTask({ tenant: '', id: submitted.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const again2 = await call(face.api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 7, method: 'CancelTask', params: { id: submitted.id } }, headers: { 'a2a-version': '1.0' } });
    expect((again2.body as { error: { code: number } }).error.code).toBe(-32002);
    suite.track(`${submitted.id}.review`);
  });
});

describe('SendStreamingMessage', () => {
  it.each(['JSONRPC', 'HTTP+JSON'] as const)('over %s: the Task first, then status frames, closed after INPUT_REQUIRED', async (binding) => {
    const client = await sdkClient(binding);
    const frames: StreamResponse[] = [];
    for await (const f of client.sendMessageStream(sendReq(userMsg('Release payments-api')))) frames.push(f);
    expect(frames[0]!.payload?.$case).toBe('task');
    const task = frames[0]!.payload!.value as Task;
    suite.track(task.id, `${task.id}.review`);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const states = frames.slice(1).map((f) => (f.payload?.$case === 'statusUpdate' ? f.payload.value.status?.state : f.payload?.$case));
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(states.slice(0, -1).every((s) => s === TaskState.TASK_STATE_WORKING)).toBe(true);
    const last = frames.at(-1)!.payload!.value as { status?: Task['status'] };
    expect((last.status?.message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('')).toContain(BASE_BRANCH_QUESTION);
    // The answer as a stream: the task snapshot first, then on to the deploy's approval (the stream stays open there), cut by us.
    const ac = new AbortController();
    const more: StreamResponse[] = [];
    const reading = (async () => {
      for await (const f of client.sendMessageStream(sendReq(userMsg('main', { taskId: task.id, contextId: task.contextId })), { signal: ac.signal })) {
        more.push(f);
        if (f.payload?.$case === 'statusUpdate' && f.payload.value.status?.state === TaskState.TASK_STATE_AUTH_REQUIRED) ac.abort();
      }
    })().catch(() => undefined);
    await eventually(() => more.some((f) => f.payload?.$case === 'statusUpdate' && f.payload.value.status?.state === TaskState.TASK_STATE_AUTH_REQUIRED), 'the approval frame on the answer stream');
    await reading;
    expect(more[0]!.payload?.$case).toBe('task');
    const authFrame = more.find((f) => f.payload?.$case === 'statusUpdate' && f.payload.value.status?.state === TaskState.TASK_STATE_AUTH_REQUIRED)!;
    const authText = ((authFrame.payload!.value as { status?: Task['status'] }).status?.message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const deployTaskId = /agent deployer \(step deploy, its task ([0-9a-f-]{36})\)/.exec(authText)?.[1];
    expect(deployTaskId).toBeDefined();
    const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // Through the plan, the deployer's own task was cancelled too.
    const remote = await call(face.deployer.baseUrl, 'POST', '/a2a/jsonrpc', { token: null, headers: { 'a2a-version': '1.0' }, body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: deployTaskId } } });
    expect((remote.body as { result: { status: { state: string } } }).result.status.state).toBe('TASK_STATE_CANCELED');
    suite.track(`${task.id}.deploy`);
  });
});

describe('several questions at once', () => {
  it('asks one at a time in plan order, the other queued in the status message; each answer reaches its own step', async () => {
    const rpc = (method: string, params: unknown) => call(face.api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 3, method, params }, headers: { 'a2a-version': '1.0' } });
    type T = { id: string; contextId: string; status: { state: string; message: { parts: Array<{ text?: string }>; metadata: { stepId?: string; queued?: string[] } } } };
    const taskOf = (r: { body: unknown }): T => (r.body as { result: { task: T } }).result.task;
    const plan = {
      name: 'two-reviews',
      agents: { 'code-reviewer': { url: face.reviewer.baseUrl } },
      steps: [
        { id: 'review-a', agent: 'code-reviewer', text: 'Please review diff A:\n+a' },
        { id: 'review-b', agent: 'code-reviewer', text: 'Please review diff B:\n+b' },
      ],
    };
    // Both steps start at once and both ask; wait until both questions are in (the first reply may come with one).
    let first = taskOf(await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { plan } }] } }));
    suite.track(first.id, `${first.id}.review-a`, `${first.id}.review-b`);
    first = await eventually(async () => {
      const t = (((await rpc('GetTask', { id: first.id })).body as { result: T }).result);
      return t.status.message.metadata.queued?.length === 1 ? t : undefined;
    }, 'both questions asked');
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.status.message.metadata.stepId).toBe('review-a');
    expect(first.status.message.parts[0]!.text).toContain('Also waiting (asked one at a time, in plan order): review-b (a question from code-reviewer)');

    const second = taskOf(await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'main' }], taskId: first.id } }));
    expect(second.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(second.status.message.metadata.stepId).toBe('review-b');
    expect(second.status.message.metadata.queued).toEqual([]);
    const done = taskOf(await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'develop' }], taskId: first.id, contextId: first.contextId } }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const answers = (step: string) => face.reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${first.id}.${step}/`)).map((m) => m.text.split('\n')[0]);
    expect(answers('review-a')).toEqual(['Please review diff A:', 'main']);
    expect(answers('review-b')).toEqual(['Please review diff B:', 'develop']);
  });
});

describe('errors from real requests', () => {
  const rpc = (method: string, params: unknown, headers: Record<string, string> = { 'a2a-version': '1.0' }, token?: string | null) =>
    call(face.api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers, token });
  const errOf = (c: { body: unknown }) => (c.body as { error: { code: number; message: string; data?: Array<{ reason?: string }> } }).error;

  it('the card is public and says what the face serves', async () => {
    // (Without the header it is the v0.3 card: test/a2a-face-v03.test.ts.)
    const res = await call(face.api.url, 'GET', '/.well-known/agent-card.json', { token: null, headers: { 'a2a-version': '1.0' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeTruthy();
    const card = res.body as { supportedInterfaces: Array<{ protocolBinding: string; protocolVersion: string; url: string }>; capabilities: { streaming: boolean }; skills: Array<{ id: string }>; securitySchemes: object };
    // v1.0 first, then the same two URLs for v0.3 callers.
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual(['JSONRPC 1.0', 'HTTP+JSON 1.0', 'JSONRPC 0.3', 'HTTP+JSON 0.3']);
    expect(card.supportedInterfaces[0]!.url).toBe(`${face.api.url}/a2a/jsonrpc`);
    expect(card.capabilities.streaming).toBe(true);
    expect(card).toHaveProperty('capabilities.pushNotifications', false); // no PLANNER_WEBHOOK_SECRET
    expect(card.skills.map((s) => s.id)).toContain('release');
    expect(card.securitySchemes).toHaveProperty('bearer');
  });

  it('no token: 401 on both bindings and nothing starts', async () => {
    const messageId = randomUUID();
    const message = { messageId, role: 'ROLE_USER', parts: [{ text: 'go' }], metadata: { skill: 'release' } };
    const a = await rpc('SendMessage', { message }, { 'a2a-version': '1.0' }, null);
    expect(a.status).toBe(401);
    const b = await call(face.api.url, 'POST', '/a2a/rest/message:send', { body: { message }, headers: { 'a2a-version': '1.0' }, token: null });
    expect(b.status).toBe(401);
    const c = await rpc('SendMessage', { message }, { 'a2a-version': '1.0' }, 'wrong-token-0123456789');
    expect(c.status).toBe(401);
    // The plan such a message would start has the id derived from its messageId: there is none.
    const wouldBe = taskIdFor(principalOf(TOKEN), contextIdFor(messageId), messageId);
    expect((await suite.client.workflow.count(`WorkflowId = '${wouldBe}'`)).count).toBe(0);
    // With the token, the same message does start it (so the id above is the right one to look for).
    const withToken = await rpc('SendMessage', { message, configuration: { returnImmediately: true } });
    expect((withToken.body as { result: { task: { id: string } } }).result.task.id).toBe(wouldBe);
    suite.track(wouldBe);
    await suite.client.workflow.getHandle(wouldBe).cancel();
  });

  it('A2A-Version: missing means 0.3 (served in v0.3: test/a2a-face-v03.test.ts), so a v1.0 method or path without it is not found; 99.0 is refused, on both bindings', async () => {
    const noHeader = await rpc('GetTask', { id: 'a2a-x' }, {});
    expect(errOf(noHeader).code).toBe(-32601);
    const future = await rpc('GetTask', { id: 'a2a-x' }, { 'a2a-version': '99.0' });
    expect(errOf(future).code).toBe(-32009);
    const rest = await call(face.api.url, 'GET', '/a2a/rest/tasks/a2a-x', {});
    expect(rest.status).toBe(404);
    expect(rest.body).toEqual({ code: -32601, message: expect.stringContaining('A2A-Version: 1.0') });
    const restFuture = await call(face.api.url, 'GET', '/a2a/rest/tasks/a2a-x', { headers: { 'a2a-version': '99.0' } });
    expect(restFuture.status).toBe(400);
    expect(JSON.stringify(restFuture.body)).toContain('VERSION_NOT_SUPPORTED');
  });

  it('unknown task -32001 / 404; bad JSON -32700; unknown method -32601; invalid params -32602 with the path', async () => {
    expect(errOf(await rpc('GetTask', { id: 'a2a-nope' })).code).toBe(-32001);
    expect(errOf(await rpc('SubscribeToTask', { id: 'a2a-nope' })).code).toBe(-32001);
    const rest404 = await call(face.api.url, 'GET', '/a2a/rest/tasks/a2a-nope', { headers: { 'a2a-version': '1.0' } });
    expect(rest404.status).toBe(404);
    expect(JSON.stringify(rest404.body)).toContain('TASK_NOT_FOUND');
    const unknownFollowUp = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }], taskId: 'a2a-nope' } });
    expect(errOf(unknownFollowUp).code).toBe(-32001);
    const bad = await call(face.api.url, 'POST', '/a2a/jsonrpc', { raw: '{"jsonrpc": "2.0", "id": 1, "method": ', headers: { 'a2a-version': '1.0', 'content-type': 'application/json' } });
    expect(errOf(bad).code).toBe(-32700);
    expect(errOf(await rpc('message/send', {})).code).toBe(-32601);
    const noParts = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [] } });
    expect(errOf(noParts).code).toBe(-32602);
    expect(errOf(noParts).message).toContain('message.parts');
    const badSkill = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skill: 'nope' } } });
    expect(errOf(badSkill).code).toBe(-32602);
    expect(errOf(badSkill).message).toContain('message.metadata.skill');
    const badPage = await rpc('ListTasks', { pageSize: 500 });
    expect(errOf(badPage).code).toBe(-32602);
    expect(errOf(badPage).message).toContain('pageSize');
    // No PLANNER_WEBHOOK_SECRET here: no push (a2a-face-push.test.ts has it).
    expect(errOf(await rpc('CreateTaskPushNotificationConfig', { taskId: 'a2a-nope', url: 'https://example.com/hook' })).code).toBe(-32003);
  });

  it('a message to a terminal task is -32004; to a task that waits on no question -32004; cancelling a terminal task -32002', async () => {
    // A plan document in a data part: one deploy step, which waits for an approval.
    const plan = { name: 'deploy-only', agents: { deployer: { url: face.deployer.baseUrl } }, steps: [{ id: 'deploy', agent: 'deployer', text: 'Deploy build 1 to staging.' }] };
    const started = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'deploy' }, { data: { plan } }] } });
    const task = (started.body as { result: { task: { id: string; contextId: string; status: { state: string; message: { parts: Array<{ text?: string }> } } } } }).result.task;
    suite.track(task.id);
    expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const waitsOnNothing = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }], taskId: task.id, contextId: task.contextId } });
    expect(errOf(waitsOnNothing).code).toBe(-32004);
    const wrongContext = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }], taskId: task.id, contextId: 'another' } });
    expect(errOf(wrongContext).code).toBe(-32602);
    const url = /https?:\/\/\S+\/approve\/[0-9a-f-]+/.exec(task.status.message.parts[0]!.text!)![0];
    await fetch(url, { method: 'POST' });
    await eventually(async () => (((await rpc('GetTask', { id: task.id })).body as { result: { status: { state: string } } }).result.status.state === 'TASK_STATE_COMPLETED'), 'the deploy-only task completed');
    const toTerminal = await rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'again' }], taskId: task.id, contextId: task.contextId } });
    expect(errOf(toTerminal).code).toBe(-32004);
    expect(errOf(await rpc('CancelTask', { id: task.id })).code).toBe(-32002);
    const restCancel = await call(face.api.url, 'POST', `/a2a/rest/tasks/${task.id}:cancel`, { body: {}, headers: { 'a2a-version': '1.0' } });
    expect(restCancel.status).toBe(400);
    expect(JSON.stringify(restCancel.body)).toContain('TASK_NOT_CANCELABLE');
    expect(errOf(await rpc('SubscribeToTask', { id: task.id })).code).toBe(-32004);
    suite.track(`${task.id}.deploy`);
  });
});

describe('ListTasks', () => {
  it('pages with the token it gives, and filters by statusTimestampAfter', async () => {
    const rpc = async (params: unknown) =>
      ((await call(face.api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 4, method: 'ListTasks', params }, headers: { 'a2a-version': '1.0' } })).body as {
        result: { tasks: Array<{ id: string; history?: unknown[]; artifacts?: unknown[] }>; nextPageToken: string; pageSize: number; totalSize: number };
      }).result;
    const one = await rpc({ pageSize: 1 });
    expect(one.tasks).toHaveLength(1);
    expect(one.totalSize).toBeGreaterThan(1); // the earlier tests of this file started several
    expect(one.nextPageToken).not.toBe('');
    const two = await rpc({ pageSize: 1, pageToken: one.nextPageToken });
    expect(two.tasks).toHaveLength(1);
    expect(two.tasks[0]!.id).not.toBe(one.tasks[0]!.id);
    expect((await rpc({ pageSize: 100, historyLength: 0 })).tasks.every((t) => t.history === undefined && t.artifacts === undefined)).toBe(true);
    const future = await rpc({ statusTimestampAfter: new Date(Date.now() + 3_600_000).toISOString() });
    expect(future.tasks).toEqual([]);
    const past = await rpc({ statusTimestampAfter: new Date(Date.now() - 3_600_000).toISOString(), pageSize: 100 });
    // (Not compared with totalSize: a count and a list read visibility at two moments, and tasks move between them.)
    expect(past.tasks.map((t) => t.id)).toContain(one.tasks[0]!.id);
  });
});

itReplaysItsHistories(suite);
