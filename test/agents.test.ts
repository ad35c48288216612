/**
 * The SDK-built test agents, driven over raw HTTP (global fetch) on both
 * bindings, so the wire behaviour other suites rely on is pinned here.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it, jest } from '@jest/globals';
import {
  BASE_BRANCH_QUESTION,
  MIGRATIONS_QUESTION,
  startCodeReviewer,
  startDeployer,
  type AgentHandle,
  type Binding,
} from './agents';
import { field, isObject, stringField } from '../demo/agents/json';

const HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

const agents: AgentHandle[] = [];
async function track(started: Promise<AgentHandle>): Promise<AgentHandle> {
  const agent = await started;
  agents.push(agent);
  return agent;
}
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

let nextMessageId = 0;
function userMessage(text: string, task?: { id: string; contextId: string }): Record<string, unknown> {
  nextMessageId += 1;
  const ids = task ? { taskId: task.id, contextId: task.contextId } : {};
  return { messageId: `m-${nextMessageId}`, role: 'ROLE_USER', parts: [{ text }], ...ids };
}

/** A task as wire JSON, with the few fields these tests read. */
interface WireTask {
  id: string;
  contextId: string;
  state: string;
  statusText: string;
  statusParts: unknown[];
  raw: unknown;
}

function asTask(json: unknown): WireTask {
  const parts = field(json, 'status', 'message', 'parts');
  const statusParts = Array.isArray(parts) ? parts : [];
  return {
    id: stringField(json, 'id') ?? '',
    contextId: stringField(json, 'contextId') ?? '',
    state: stringField(json, 'status', 'state') ?? '',
    statusText: statusParts.flatMap((part: unknown) => stringField(part, 'text') ?? []).join('\n'),
    statusParts,
    raw: json,
  };
}

function artifactData(task: WireTask, name: string): unknown {
  const artifacts = field(task.raw, 'artifacts');
  const artifact = Array.isArray(artifacts)
    ? artifacts.find((candidate: unknown) => stringField(candidate, 'name') === name)
    : undefined;
  const parts = field(artifact, 'parts');
  const dataPart = Array.isArray(parts) ? parts.find((part: unknown) => field(part, 'data') !== undefined) : undefined;
  expect(stringField(dataPart, 'mediaType')).toBe('application/json');
  return field(dataPart, 'data');
}

/** The A2A calls these tests need, spoken in one binding over plain fetch. */
interface Wire {
  send(message: Record<string, unknown>, configuration?: Record<string, unknown>): Promise<WireTask>;
  getTask(id: string): Promise<WireTask>;
  cancel(id: string): Promise<WireTask>;
  stream(message: Record<string, unknown>): Promise<Response>;
  subscribe(id: string): Promise<Response>;
}

function wire(agent: AgentHandle, binding: Binding): Wire {
  return binding === 'JSONRPC' ? jsonRpcWire(`${agent.baseUrl}/a2a/jsonrpc`) : restWire(`${agent.baseUrl}/a2a/rest`);
}

function jsonRpcWire(url: string): Wire {
  let id = 0;
  const post = (method: string, params: unknown, accept = 'application/json') =>
    fetch(url, {
      method: 'POST',
      headers: { ...HEADERS, Accept: accept },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
  const call = async (method: string, params: unknown): Promise<unknown> => {
    const body: unknown = await (await post(method, params)).json();
    if (field(body, 'error') !== undefined) throw new Error(`${method}: ${JSON.stringify(field(body, 'error'))}`);
    return field(body, 'result');
  };
  return {
    send: async (message, configuration) => asTask(field(await call('SendMessage', { message, configuration }), 'task')),
    getTask: async (taskId) => asTask(await call('GetTask', { id: taskId })),
    cancel: async (taskId) => asTask(await call('CancelTask', { id: taskId })),
    stream: (message) => post('SendStreamingMessage', { message }, 'text/event-stream'),
    subscribe: (taskId) => post('SubscribeToTask', { id: taskId }, 'text/event-stream'),
  };
}

function restWire(base: string): Wire {
  const call = async (httpMethod: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${base}${path}`, {
      method: httpMethod,
      headers: HEADERS,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json: unknown = await response.json();
    if (!response.ok) throw new Error(`${httpMethod} ${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const sse = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...HEADERS, Accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
  return {
    send: async (message, configuration) =>
      asTask(field(await call('POST', '/message:send', { message, configuration }), 'task')),
    getTask: async (taskId) => asTask(await call('GET', `/tasks/${taskId}`)),
    cancel: async (taskId) => asTask(await call('POST', `/tasks/${taskId}:cancel`, {})),
    stream: (message) => sse('/message:stream', { message }),
    subscribe: (taskId) => sse(`/tasks/${taskId}:subscribe`, {}),
  };
}

/** SSE frames as StreamResponse JSON (JSON-RPC envelopes unwrapped). Throws if the connection breaks. */
async function* sseFrames(response: Response): AsyncGenerator<unknown> {
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  if (!response.body) throw new Error('SSE response has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        buffer = buffer.slice(end + 2);
        const parsed: unknown = JSON.parse(data);
        yield isObject(parsed) && 'jsonrpc' in parsed ? field(parsed, 'result') : parsed;
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    reader.releaseLock();
  }
}

interface Collected {
  frames: unknown[];
  /** Set when the connection broke instead of ending cleanly. */
  error?: unknown;
}

/** Reads frames until the stream ends or `stopWhen` matches; a stopped stream stays open for more reads. */
async function collect(frames: AsyncGenerator<unknown>, stopWhen: (frame: unknown) => boolean = () => false) {
  const result: Collected = { frames: [] };
  try {
    // Not for-await: breaking out of one would close the generator and the connection.
    for (let next = await frames.next(); !next.done; next = await frames.next()) {
      result.frames.push(next.value);
      if (stopWhen(next.value)) break;
    }
  } catch (error) {
    result.error = error;
  }
  return result;
}

function frameState(frame: unknown): string | undefined {
  return stringField(frame, 'task', 'status', 'state') ?? stringField(frame, 'statusUpdate', 'status', 'state');
}

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const DIFF = 'Please review this diff: +const retries = 3;';
const DEPLOY = 'Deploy build 2026.10.06-1 of payments-api to staging';

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('test agents over %s', (binding) => {
  it('code-reviewer asks for the base branch, then completes on the same task with review.json', async () => {
    const reviewer = await track(startCodeReviewer());
    const a2a = wire(reviewer, binding);

    const asked = await a2a.send(userMessage(DIFF));
    expect(asked.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.statusText).toBe(BASE_BRANCH_QUESTION);

    const done = await a2a.send(userMessage('main', asked));
    expect(done.id).toBe(asked.id);
    expect(done.state).toBe('TASK_STATE_COMPLETED');
    expect(done.statusText).toBe('Review complete');
    expect(artifactData(done, 'review.json')).toMatchObject({ baseBranch: 'main', verdict: 'approve' });

    expect(reviewer.log.userMessages.map((m) => [m.text, m.role, m.taskId])).toEqual([
      [DIFF, 'ROLE_USER', undefined],
      ['main', 'ROLE_USER', asked.id],
    ]);
    expect(reviewer.log.userMessages[1]?.contextId).toBe(asked.contextId);
    expect(reviewer.log.requests.map((r) => [r.binding, r.method, r.taskId])).toEqual([
      [binding, 'SendMessage', undefined],
      [binding, 'SendMessage', asked.id],
    ]);
  });

  it('deployer stops in AUTH_REQUIRED until POST /approve, then completes in the background', async () => {
    const deployer = await track(startDeployer());
    const a2a = wire(deployer, binding);

    const waiting = await a2a.send(userMessage(DEPLOY));
    expect(waiting.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const approvalUrl = `${deployer.baseUrl}/approve/${waiting.id}`;
    expect(waiting.statusText).toBe(`An operator must approve this deploy at ${approvalUrl}`);
    expect(waiting.statusParts.map((part) => field(part, 'data'))).toContainEqual({ approvalUrl });

    await deployer.approve(waiting.id);
    const done = await eventually(
      () => a2a.getTask(waiting.id),
      (task) => task.state === 'TASK_STATE_COMPLETED',
    );
    expect(done.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactData(done, 'deploy-result.json')).toEqual({
      environment: 'staging',
      status: 'deployed',
      version: '2026.10.06-1',
    });
    expect(deployer.log.approvals.map((a) => a.taskId)).toEqual([waiting.id]);
    expect(deployer.log.requests.map((r) => r.method)).toEqual(
      expect.arrayContaining(['SendMessage', 'GetTask']),
    );
  });

  it('CancelTask ends a task waiting in INPUT_REQUIRED or AUTH_REQUIRED as CANCELED', async () => {
    const reviewer = await track(startCodeReviewer());
    const deployer = await track(startDeployer());

    const question = await wire(reviewer, binding).send(userMessage(DIFF));
    const canceledReview = await wire(reviewer, binding).cancel(question.id);
    expect(canceledReview.state).toBe('TASK_STATE_CANCELED');
    expect(await reviewer.taskState(question.id)).toBe('TASK_STATE_CANCELED');

    const approval = await wire(deployer, binding).send(userMessage(DEPLOY));
    const canceledDeploy = await wire(deployer, binding).cancel(approval.id);
    expect(canceledDeploy.state).toBe('TASK_STATE_CANCELED');
    expect(await deployer.taskState(approval.id)).toBe('TASK_STATE_CANCELED');
    // The waiting approval was abandoned with the task.
    await expect(deployer.approve(approval.id)).rejects.toThrow(/HTTP 404/);

    expect(deployer.log.requests.map((r) => [r.method, r.taskId])).toContainEqual(['CancelTask', approval.id]);
  });

  it('dropStreams cuts the first stream after one frame; a resubscribe then follows the task to the end', async () => {
    const deployer = await track(startDeployer({ dropStreams: 1 }));
    const a2a = wire(deployer, binding);

    const cut = await collect(sseFrames(await a2a.stream(userMessage(DEPLOY))));
    expect(cut.frames).toHaveLength(1);
    expect(cut.error).toBeDefined();
    const taskId = stringField(cut.frames[0], 'task', 'id') ?? '';
    expect(frameState(cut.frames[0])).toBe('TASK_STATE_SUBMITTED');

    // The executor did not notice the cut and still waits for its operator.
    expect(await eventually(() => deployer.taskState(taskId), (s) => s === 'TASK_STATE_AUTH_REQUIRED')).toBe(
      'TASK_STATE_AUTH_REQUIRED',
    );
    const frames = sseFrames(await a2a.subscribe(taskId));
    const snapshot = await frames.next();
    expect(frameState(snapshot.value)).toBe('TASK_STATE_AUTH_REQUIRED');
    await deployer.approve(taskId);
    const rest = await collect(frames);
    expect(rest.error).toBeUndefined();
    expect(rest.frames.map(frameState).filter(Boolean)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);

    const [subscription] = deployer.log.subscriptions;
    expect(subscription?.taskId).toBe(taskId);
    expect(subscription?.firstFrameAt).toBeGreaterThanOrEqual(subscription?.at ?? Infinity);
    expect(deployer.log.requests.map((r) => r.method)).toEqual(
      expect.arrayContaining(['SendStreamingMessage', 'SubscribeToTask']),
    );
  });

  it('a message to a deploy waiting for approval leaves the stream that started it whole', async () => {
    const deployer = await track(startDeployer());
    const a2a = wire(deployer, binding);
    const errors = jest.spyOn(console, 'error');
    try {
      const frames = sseFrames(await a2a.stream(userMessage(DEPLOY)));
      const head = await collect(frames, (frame) => frameState(frame) === 'TASK_STATE_AUTH_REQUIRED');
      const taskId = stringField(head.frames[0], 'task', 'id') ?? '';
      // The follow-up shares the run's event bus with the open stream: it restates the wait.
      const restated = await a2a.send(userMessage('Is it approved yet?', { id: taskId, contextId: stringField(head.frames[0], 'task', 'contextId') ?? '' }));
      expect(restated.state).toBe('TASK_STATE_AUTH_REQUIRED');
      await deployer.approve(taskId);
      const rest = await collect(frames);
      expect(rest.error).toBeUndefined();
      expect(rest.frames.map(frameState).filter(Boolean)).toEqual(['TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
      expect(errors.mock.calls.map((c) => String(c[0]))).not.toContainEqual(expect.stringContaining('Stream ordering violation'));
    } finally {
      errors.mockRestore();
    }
  });
});

describe('test agent options', () => {
  it('serves a v1.0 card listing both bindings, preferred one first', async () => {
    const reviewer = await track(startCodeReviewer());
    const deployer = await track(startDeployer({ preferredBinding: 'HTTP+JSON', streaming: false, pushNotifications: true }));

    expect(field(reviewer.card, 'name')).toBe('code-reviewer');
    expect(field(reviewer.card, 'supportedInterfaces')).toEqual([
      { url: `${reviewer.baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: `${reviewer.baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
    ]);
    expect(field(reviewer.card, 'capabilities')).toMatchObject({ streaming: true, pushNotifications: false });

    expect(field(deployer.card, 'name')).toBe('deployer');
    const interfaces = field(deployer.card, 'supportedInterfaces');
    expect(Array.isArray(interfaces) ? interfaces.map((i: unknown) => field(i, 'protocolBinding')) : []).toEqual([
      'HTTP+JSON',
      'JSONRPC',
    ]);
    expect(field(deployer.card, 'capabilities')).toMatchObject({ streaming: false, pushNotifications: true });
    expect(deployer.baseUrl).toBe(`http://127.0.0.1:${deployer.port}`);
  });

  it('questions=2 asks two different questions; baseBranch is the first answer', async () => {
    const reviewer = await track(startCodeReviewer({ questions: 2 }));
    const a2a = wire(reviewer, 'JSONRPC');
    const first = await a2a.send(userMessage(DIFF));
    expect(first.statusText).toBe(BASE_BRANCH_QUESTION);
    const second = await a2a.send(userMessage('release/2026.10', first));
    expect(second.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(second.statusText).toBe(MIGRATIONS_QUESTION);
    const done = await a2a.send(userMessage('yes', first));
    expect(done.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactData(done, 'review.json')).toMatchObject({ baseBranch: 'release/2026.10' });
    expect(reviewer.log.userMessages).toHaveLength(3);
  });

  it('authRounds=2 needs two separate approvals', async () => {
    const deployer = await track(startDeployer({ authRounds: 2 }));
    const a2a = wire(deployer, 'HTTP+JSON');
    const task = await a2a.send(userMessage('Deploy something'));
    await deployer.approve(task.id);
    // The second round is a fresh AUTH_REQUIRED; until it is approved nothing completes.
    const second = await eventually(
      () => a2a.getTask(task.id),
      (t) => t.state === 'TASK_STATE_AUTH_REQUIRED' && t.statusText.includes('approval 2 of 2'),
    );
    expect(second.statusText).toContain(`/approve/${task.id}`);
    await deployer.approve(task.id);
    const done = await eventually(
      () => a2a.getTask(task.id),
      (t) => t.state === 'TASK_STATE_COMPLETED',
    );
    expect(artifactData(done, 'deploy-result.json')).toMatchObject({ version: 'unknown' });
    expect(deployer.log.approvals).toHaveLength(2);
  });

  it('streaming=false makes the SDK refuse SendStreamingMessage', async () => {
    const reviewer = await track(startCodeReviewer({ streaming: false }));
    const jsonRpc = await wire(reviewer, 'JSONRPC').stream(userMessage(DIFF));
    expect(jsonRpc.headers.get('content-type')).not.toMatch(/event-stream/);
    expect(field(await jsonRpc.json(), 'error')).toBeDefined();
    const rest = await wire(reviewer, 'HTTP+JSON').stream(userMessage(DIFF));
    expect(rest.ok).toBe(false);
    await rest.arrayBuffer();
    expect(reviewer.log.requests.map((r) => r.method)).toEqual(['SendStreamingMessage', 'SendStreamingMessage']);
  });

  describe('push notifications', () => {
    let webhook: Server;
    const received: { taskId?: string; state?: string }[] = [];
    afterAll(async () => {
      await new Promise<void>((resolve) => {
        webhook.close(() => resolve());
        webhook.closeAllConnections();
      });
    });

    async function readBody(req: IncomingMessage): Promise<unknown> {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(Buffer.from(chunk as Uint8Array));
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }

    it('delivers task events to a registered webhook and records each delivery', async () => {
      webhook = createServer((req, res) => {
        void readBody(req).then((body) => {
          received.push({
            taskId: stringField(body, 'statusUpdate', 'taskId') ?? stringField(body, 'task', 'id'),
            state: frameState(body),
          });
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;

      const deployer = await track(startDeployer({ pushNotifications: true }));
      const a2a = wire(deployer, 'JSONRPC');
      const task = await a2a.send(userMessage(DEPLOY));
      // Registered while the task waits for its operator, over the other binding.
      const registered = await fetch(`${deployer.baseUrl}/a2a/rest/tasks/${task.id}/pushNotificationConfigs`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ url, token: 'tok' }),
      });
      expect(registered.status).toBe(201);
      await registered.arrayBuffer();
      await deployer.approve(task.id);
      await eventually(
        async () => received.map((r) => r.state),
        (states) => states.includes('TASK_STATE_COMPLETED'),
      );
      expect(received.map((r) => r.state)).toContain('TASK_STATE_COMPLETED');
      expect(received.every((r) => r.taskId === undefined || r.taskId === task.id)).toBe(true);
      expect(deployer.log.pushDeliveries.length).toBeGreaterThan(0);
      expect(deployer.log.pushDeliveries.every((d) => d.url === url && d.status === 200)).toBe(true);
      expect(deployer.log.requests.map((r) => [r.binding, r.method, r.taskId])).toContainEqual([
        'HTTP+JSON',
        'CreateTaskPushNotificationConfig',
        task.id,
      ]);
    });
  });

  it('close() resolves promptly with an SSE stream still open', async () => {
    const deployer = await startDeployer();
    const frames = sseFrames(await wire(deployer, 'HTTP+JSON').stream(userMessage(DEPLOY)));
    // Read up to AUTH_REQUIRED: from here the SDK keeps the stream open and silent.
    const head = await collect(frames, (frame) => frameState(frame) === 'TASK_STATE_AUTH_REQUIRED');
    expect(head.frames.map(frameState)).toContain('TASK_STATE_AUTH_REQUIRED');
    const started = Date.now();
    await deployer.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    const tail = await collect(frames);
    expect(tail.frames).toEqual([]);
  });

  it('answers malformed JSON exactly as the SDK would, and still records the request', async () => {
    const reviewer = await track(startCodeReviewer());
    const jsonRpc = await fetch(`${reviewer.baseUrl}/a2a/jsonrpc`, { method: 'POST', headers: HEADERS, body: '{oops' });
    expect(await jsonRpc.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Invalid JSON payload.' },
    });
    const rest = await fetch(`${reviewer.baseUrl}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { ...HEADERS, 'Content-Type': 'application/a2a+json' },
      body: '{oops',
    });
    expect(rest.status).toBe(400);
    expect(field(await rest.json(), 'error', 'message')).toBe('Invalid JSON payload.');
    expect(reviewer.log.requests.map((r) => [r.binding, r.method])).toEqual([
      ['JSONRPC', ''],
      ['HTTP+JSON', 'SendMessage'],
    ]);
  });
});
