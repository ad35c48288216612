/**
 * Every client method against real @a2a-js/sdk agents, over both bindings. Each typed error
 * below comes from a real server response, not from a mock.
 */
import {
  connectA2A,
  createA2AClient,
  isRetryable,
  resolveAgentCard,
  StreamResponseSchema,
  type A2AClient,
  type Binding,
  type StreamResponse,
  type Task,
} from '../../a2a';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from '../agents';
import { collect, kindOf, stateOf, startWebhookReceiver, textOf, thrown, userMessage, type WebhookReceiver } from './helpers';

const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON'];

describe.each(BINDINGS)('A2A client over %s against SDK agents', (binding) => {
  let reviewer: AgentHandle;
  let deployer: AgentHandle;
  let pushReviewer: AgentHandle;
  let webhook: WebhookReceiver;
  let rc: A2AClient;
  let dc: A2AClient;
  let pc: A2AClient;

  beforeAll(async () => {
    // The SDK server prints every error it answers (with a stack) to the console.
    for (const level of ['error', 'warn', 'info', 'log'] as const) jest.spyOn(console, level).mockImplementation(() => undefined);
    [reviewer, deployer, pushReviewer, webhook] = await Promise.all([
      startCodeReviewer({ preferredBinding: binding }),
      startDeployer({ preferredBinding: binding }),
      startCodeReviewer({ preferredBinding: binding, pushNotifications: true }),
      startWebhookReceiver(),
    ]);
    // No preferredBindings: the client must follow the card's order, which puts `binding` first.
    [rc, dc, pc] = await Promise.all([
      connectA2A(reviewer.baseUrl, { agentName: 'code-reviewer' }),
      connectA2A(deployer.baseUrl, { agentName: 'deployer' }),
      connectA2A(pushReviewer.baseUrl, { agentName: 'push-reviewer' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([rc?.close(), dc?.close(), pc?.close()]);
    await Promise.all([reviewer?.close(), deployer?.close(), pushReviewer?.close(), webhook?.close()]);
    jest.restoreAllMocks();
  });

  async function completedReview(): Promise<Task> {
    const first = await rc.sendMessage({ message: userMessage('Please review this diff: +const a = 1;') });
    if (!('task' in first)) throw new Error('expected a task');
    const done = await rc.sendMessage({
      message: userMessage('main', { taskId: first.task.id, contextId: first.task.contextId ?? '' }),
    });
    if (!('task' in done)) throw new Error('expected a task');
    return done.task;
  }

  test('resolves the card and picks the first interface in card order', async () => {
    const card = await resolveAgentCard(reviewer.baseUrl);
    expect(card.name).toBe('code-reviewer');
    expect(card.capabilities.streaming).toBe(true);
    expect(rc.binding).toBe(binding);
    expect(rc.url).toBe(card.supportedInterfaces[0]?.url);
    expect(rc.tenant).toBeUndefined(); // the SDK card's tenant is ""

    // An explicit preference overrides the card order.
    const other: Binding = binding === 'JSONRPC' ? 'HTTP+JSON' : 'JSONRPC';
    const c2 = createA2AClient(card, { preferredBindings: [other] });
    expect(c2.binding).toBe(other);
    await c2.close();

    // The SDK rejects any request without `A2A-Version: 1.0`, so these succeeding shows the header
    // is sent (hostile.test.ts checks the raw headers); the agent saw them on the chosen binding.
    await rc.getTask({ id: (await completedReview()).id });
    const requests = reviewer.log.requests;
    expect(requests.map((r) => r.binding)).toContain(binding);
    expect(requests.filter((r) => r.method === 'GetTask').every((r) => r.binding === binding)).toBe(true);
  });

  test('blocking sendMessage returns at INPUT_REQUIRED; the answer on the same task completes it', async () => {
    const first = await rc.sendMessage({ message: userMessage('Please review this diff: +const a = 1;') });
    expect('task' in first).toBe(true);
    if (!('task' in first)) return;
    expect(first.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(textOf(first.task.status.message)).toBe(BASE_BRANCH_QUESTION);

    const done = await rc.sendMessage(
      { message: userMessage('main', { taskId: first.task.id, contextId: first.task.contextId ?? '' }), configuration: { historyLength: 0 } },
    );
    if (!('task' in done)) throw new Error('expected a task');
    expect(done.task.id).toBe(first.task.id);
    expect(done.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.task.history).toBeUndefined(); // historyLength 0 omits history
    const artifact = done.task.artifacts?.find((a) => a.name === 'review.json');
    const part = artifact?.parts[0];
    expect(part && 'data' in part ? part.data : undefined).toMatchObject({ baseBranch: 'main', verdict: 'approve' });
  });

  test('returnImmediately returns the task before it is done; getTask honours historyLength', async () => {
    const r = await dc.sendMessage({ message: userMessage('deploy build 2.0.0'), configuration: { returnImmediately: true } });
    if (!('task' in r)) throw new Error('expected a task');
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(r.task.status.state);

    const t = await dc.getTask({ id: r.task.id, historyLength: 1 });
    expect(t.id).toBe(r.task.id);
    expect((t.history ?? []).length).toBeLessThanOrEqual(1);
    await dc.cancelTask({ id: r.task.id }).catch(() => undefined);
  });

  test('sendStreamingMessage: the stream closes right after INPUT_REQUIRED', async () => {
    const frames = await collect(rc.sendStreamingMessage({ message: userMessage('Please review: +b') }));
    expect(kindOf(frames[0]!)).toBe('task');
    const last = frames[frames.length - 1]!;
    expect(kindOf(last)).toBe('statusUpdate');
    expect(stateOf(last)).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  test('sendStreamingMessage: the stream stays open through AUTH_REQUIRED until COMPLETED', async () => {
    const frames: StreamResponse[] = [];
    let approvedAt = -1;
    for await (const f of dc.sendStreamingMessage({ message: userMessage('deploy build 1.2.3') })) {
      frames.push(f);
      if (stateOf(f) === 'TASK_STATE_AUTH_REQUIRED' && approvedAt < 0) {
        approvedAt = frames.length;
        const taskId = 'statusUpdate' in f ? f.statusUpdate.taskId : '';
        expect(textOf('statusUpdate' in f ? f.statusUpdate.status.message : undefined)).toContain(`/approve/${taskId}`);
        await deployer.approve(taskId);
      }
    }
    expect(approvedAt).toBeGreaterThan(0);
    const after = frames.slice(approvedAt);
    expect(after.map(stateOf).filter(Boolean)).toContain('TASK_STATE_WORKING');
    expect(after.some((f) => 'artifactUpdate' in f && f.artifactUpdate.artifact.name === 'deploy-result.json')).toBe(true);
    expect(stateOf(frames[frames.length - 1]!)).toBe('TASK_STATE_COMPLETED');
  });

  test('subscribeToTask: first frame is the Task, then updates until COMPLETED', async () => {
    const r = await dc.sendMessage({ message: userMessage('deploy build 3.0.0') });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');

    const frames: StreamResponse[] = [];
    for await (const f of dc.subscribeToTask({ id: r.task.id })) {
      frames.push(f);
      if (frames.length === 1) await deployer.approve(r.task.id);
    }
    const first = frames[0]!;
    expect('task' in first && first.task.id).toBe(r.task.id);
    expect(stateOf(first)).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(stateOf(frames[frames.length - 1]!)).toBe('TASK_STATE_COMPLETED');
    expect((await dc.getTask({ id: r.task.id })).status.state).toBe('TASK_STATE_COMPLETED');
  });

  test('consumer leaving a stream early releases it; the task carries on', async () => {
    const r = await dc.sendMessage({ message: userMessage('deploy build 4.0.0') });
    if (!('task' in r)) throw new Error('expected a task');
    for await (const f of dc.subscribeToTask({ id: r.task.id })) {
      expect(kindOf(f)).toBe('task');
      break;
    }
    await deployer.approve(r.task.id);
    const deadline = Date.now() + 3000;
    let t = await dc.getTask({ id: r.task.id });
    while (t.status.state !== 'TASK_STATE_COMPLETED' && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 20));
      t = await dc.getTask({ id: r.task.id });
    }
    expect(t.status.state).toBe('TASK_STATE_COMPLETED');
  });

  test('listTasks filters by context', async () => {
    const done = await completedReview();
    const list = await rc.listTasks({ contextId: done.contextId ?? '', pageSize: 10, includeArtifacts: true });
    expect(list.tasks.map((t) => t.id)).toEqual([done.id]);
    expect(list.nextPageToken).toBe('');
    expect(list.tasks[0]?.artifacts?.length).toBeGreaterThan(0);
    const bare = await rc.listTasks({ contextId: done.contextId ?? '', status: 'TASK_STATE_COMPLETED' });
    expect(bare.tasks[0]?.artifacts).toBeUndefined();
  });

  test('cancelTask cancels a task waiting in AUTH_REQUIRED', async () => {
    const r = await dc.sendMessage({ message: userMessage('deploy build 5.0.0') });
    if (!('task' in r)) throw new Error('expected a task');
    const canceled = await dc.cancelTask({ id: r.task.id, metadata: { reason: 'test' } });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(await deployer.taskState(r.task.id)).toBe('TASK_STATE_CANCELED');
  });

  describe('typed errors from real responses', () => {
    test('unknown task -> TaskNotFoundError (getTask, cancelTask, subscribeToTask, follow-up)', async () => {
      for (const call of [
        () => rc.getTask({ id: 'no-such-task' }),
        () => rc.cancelTask({ id: 'no-such-task' }),
        () => collect(rc.subscribeToTask({ id: 'no-such-task' })),
        () => rc.sendMessage({ message: userMessage('hi', { taskId: 'no-such-task' }) }),
      ]) {
        const e = await thrown(call);
        expect(e.name).toBe('TaskNotFoundError');
        expect(isRetryable(e)).toBe(false);
        expect(e.message).toMatch(/^agent code-reviewer \(http:\/\/127\.0\.0\.1:\d+\/a2a\/(jsonrpc|rest)\) [A-Z][A-Za-z]+: /);
      }
    });

    test('message to a completed task -> UnsupportedOperationError (blocking and streaming)', async () => {
      const done = await completedReview();
      const follow = userMessage('again', { taskId: done.id });
      const e = await thrown(() => rc.sendMessage({ message: follow }));
      expect(e.name).toBe('UnsupportedOperationError');
      expect(isRetryable(e)).toBe(false);
      const e2 = await thrown(() => collect(rc.sendStreamingMessage({ message: { ...follow, messageId: 'm-2' } })));
      expect(e2.name).toBe('UnsupportedOperationError');
      const e3 = await thrown(() => collect(rc.subscribeToTask({ id: done.id })));
      expect(e3.name).toBe('UnsupportedOperationError');
    });

    test('cancel of a completed task -> TaskNotCancelableError', async () => {
      const done = await completedReview();
      const e = await thrown(() => rc.cancelTask({ id: done.id }));
      expect(e.name).toBe('TaskNotCancelableError');
      expect(isRetryable(e)).toBe(false);
    });

    test('missing A2A-Version header -> VersionNotSupportedError', async () => {
      const bare = createA2AClient(rc.card, { protocolVersion: '', preferredBindings: [binding] });
      try {
        const e = await thrown(() => bare.getTask({ id: 'x' }));
        expect(e.name).toBe('VersionNotSupportedError');
        expect(e.message).toContain('0.3');
        const e2 = await thrown(() => collect(bare.sendStreamingMessage({ message: userMessage('x') })));
        expect(e2.name).toBe('VersionNotSupportedError');
      } finally {
        await bare.close();
      }
    });

    test('push-config methods on an agent without push -> PushNotificationNotSupportedError', async () => {
      const done = await completedReview();
      for (const call of [
        () => rc.createTaskPushNotificationConfig({ taskId: done.id, url: webhook.url }),
        () => rc.getTaskPushNotificationConfig({ taskId: done.id, id: 'cfg' }),
        () => rc.listTaskPushNotificationConfigs({ taskId: done.id }),
        () => rc.deleteTaskPushNotificationConfig({ taskId: done.id, id: 'cfg' }),
      ]) {
        const e = await thrown(call);
        expect(e.name).toBe('PushNotificationNotSupportedError');
        expect(isRetryable(e)).toBe(false);
      }
    });

    test('getExtendedAgentCard on an agent without one -> UnsupportedOperationError', async () => {
      const e = await thrown(() => rc.getExtendedAgentCard());
      expect(e.name).toBe('UnsupportedOperationError');
    });
  });

  test('push configs: create, get, list, delete (idempotent), and deliveries parse as StreamResponse', async () => {
    const first = await pc.sendMessage({ message: userMessage('Please review: +c') });
    if (!('task' in first)) throw new Error('expected a task');
    const taskId = first.task.id;
    const created = await pc.createTaskPushNotificationConfig({
      taskId,
      url: webhook.url,
      authentication: { scheme: 'Bearer', credentials: 'webhook-secret' },
    });
    expect(created.id).toBeTruthy();
    expect(created.url).toBe(webhook.url);
    const id = created.id ?? '';

    expect((await pc.getTaskPushNotificationConfig({ taskId, id })).url).toBe(webhook.url);
    const listed = await pc.listTaskPushNotificationConfigs({ taskId });
    expect(listed.configs.map((c) => c.id)).toContain(id);

    const before = webhook.received.length;
    await pc.sendMessage({ message: userMessage('main', { taskId }) });
    const deadline = Date.now() + 3000;
    while (webhook.received.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const deliveries = webhook.received.slice(before);
    expect(deliveries.length).toBeGreaterThan(0);
    for (const d of deliveries) {
      expect(d.headers.authorization).toBe('Bearer webhook-secret');
      expect(StreamResponseSchema.safeParse(JSON.parse(d.body)).success).toBe(true);
    }

    await pc.deleteTaskPushNotificationConfig({ taskId, id });
    await pc.deleteTaskPushNotificationConfig({ taskId, id }); // a second delete is not an error
    expect((await pc.listTaskPushNotificationConfigs({ taskId })).configs).toEqual([]);
    const gone = await thrown(() => pc.getTaskPushNotificationConfig({ taskId, id }));
    expect(gone.name).toBe('TaskNotFoundError');
  });
});
