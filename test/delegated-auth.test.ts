// AUTH_REQUIRED: subscribe first, alert second, send nothing, detect the resume.
import { WorkflowFailedError } from '@temporalio/client';
import { startDeployer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';
import { eventMs } from '../client/history';

const suite = plannerSuite('auth');

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('deployer over %s', (binding) => {
  let deployer: AgentHandle;
  beforeAll(async () => {
    deployer = await startDeployer({ preferredBinding: binding });
  });
  afterAll(() => deployer.close());

  it('alerts only after the subscription is established, sends nothing while waiting, and completes right after approval', async () => {
    const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, planId: 'plan-deploy' });
    const waiting = await waitForStatus(handle, (s) => s.waitingOn === 'operator', 'AUTH_REQUIRED');
    const taskId = waiting.taskId!;
    expect(waiting.text).toContain(`/approve/${taskId}`);

    const alert = await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], 'the auth alert');
    expect(alert.body).toMatchObject({ kind: 'auth', agent: 'deployer', taskId });
    expect(alert.body.text).toBe(waiting.text); // the agent's own words, with the approval URL
    const sub = deployer.log.subscriptions.find((s) => s.taskId === taskId);
    expect(sub?.firstFrameAt).toBeDefined();
    expect(alert.at).toBeGreaterThanOrEqual(sub!.firstFrameAt!);
    // The send subscribed for the watch (activities/early-subscriptions.ts) before the watch was
    // even scheduled, and the watch took that subscription: one SubscribeToTask for the round.
    expect(deployer.log.subscriptions.filter((s) => s.taskId === taskId)).toHaveLength(1);
    const scheduled = (await handle.fetchHistory()).events?.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'watchRemoteTask');
    expect(sub!.at).toBeLessThanOrEqual(eventMs(scheduled!));
    // And the send posted the alert once that subscription showed its first frame: it waited for
    // neither the send's workflow task nor the watch's dispatch, and the watch posted none (below).
    expect(alert.at).toBeLessThan(eventMs(scheduled!));

    // Nothing goes to the agent during the wait.
    const requestsBefore = deployer.log.requests.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(deployer.log.requests.slice(requestsBefore)).toEqual([]);

    const approvedAt = Date.now();
    await deployer.approve(taskId);
    const result = await handle.result();
    const doneIn = Date.now() - approvedAt;
    expect(doneIn).toBeLessThan(2000);
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(result.artifacts.map((a) => a.name)).toContain('deploy-result.json');
    expect(deployer.log.userMessages.filter((m) => m.messageId.startsWith(`${handle.workflowId}/`))).toHaveLength(1);
    expect(deployer.log.requests.filter((r) => r.method === 'SendMessage' || r.method === 'SendStreamingMessage')).toHaveLength(1);
    expect(suite.sink.forWorkflow(handle.workflowId)).toHaveLength(1);
  });
});

describe('an approval the send alerted', () => {
  let deployer: AgentHandle;
  beforeAll(async () => {
    deployer = await startDeployer();
  });
  afterAll(() => deployer.close());

  it('is posted by the watch, after its subscription, under the same key, and arrives once, when the send could not post it', async () => {
    const workflowId = `auth-refused-${Date.now()}`;
    suite.sink.refuseNext(workflowId);
    const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } }, workflowId);
    const waiting = await waitForStatus(handle, (s) => s.waitingOn === 'operator', 'AUTH_REQUIRED');
    const alert = await eventually(() => suite.sink.forWorkflow(workflowId)[0], 'the auth alert');
    const refused = suite.sink.refused.filter((a) => a.body.workflowId === workflowId);
    expect(refused).toHaveLength(1); // the send's post, answered 503
    expect(refused[0]!.idempotencyKey).toBe(alert.idempotencyKey);
    expect(alert.body).toMatchObject({ kind: 'auth', taskId: waiting.taskId, text: waiting.text });
    const scheduled = (await handle.fetchHistory()).events?.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'watchRemoteTask');
    expect(alert.at).toBeGreaterThanOrEqual(eventMs(scheduled!)); // the watch's

    await deployer.approve(waiting.taskId!);
    expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
    expect(suite.sink.forWorkflow(workflowId)).toHaveLength(1);
  });

  it('reaches the workflow when approved the instant it was alerted, the resume and the end each once, from the subscription the send opened', async () => {
    const workflowId = `auth-instant-${Date.now()}`;
    const approving = suite.sink.first(workflowId).then((a) => deployer.approve(a.body.taskId));
    const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } }, workflowId);
    await approving;
    const result = await handle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(result.artifacts.map((a) => a.name)).toContain('deploy-result.json');
    expect(deployer.log.subscriptions.filter((s) => s.taskId === result.taskId)).toHaveLength(1);
    expect(suite.sink.forWorkflow(workflowId)).toHaveLength(1);
    // Whoever told it (the held subscription, or the watch that took it), the workflow heard the
    // resume and the end once each: nothing told twice.
    const events = (await handle.fetchHistory()).events ?? [];
    const signalled = events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'observe');
    expect(signalled.length).toBeLessThanOrEqual(1); // an end right after the resume: one signal
    // No completion of the watch lands beside the run's close (the server refuses that close and
    // the last workflow task replays), and the approval's budget holds (docs/delegated-task.md).
    expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    expect(events.length).toBeLessThanOrEqual(16);
    expect(deployer.log.userMessages.filter((m) => m.messageId.startsWith(`${workflowId}/`))).toHaveLength(1);
  });
});

describe('an agent that keeps asking for approval', () => {
  let deployer: AgentHandle;
  beforeAll(async () => {
    deployer = await startDeployer({ authRounds: 4 });
  });
  afterAll(() => deployer.close());

  it('fails with a reason that names the bound once re-entries exceed it', async () => {
    const handle = await suite.start({
      agent: { name: 'deployer', url: deployer.baseUrl },
      message: { text: DEPLOY },
      policies: { maxAuthRounds: 2 },
    });
    for (let round = 1; round <= 2; round++) {
      const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator' && x.authRounds === round, `auth round ${round}`);
      await eventually(() => suite.sink.forWorkflow(handle.workflowId).length >= round, `alert ${round}`);
      await deployer.approve(s.taskId!);
    }
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as { type?: string; message: string };
    expect(cause.type).toBe('AuthRoundsExceeded');
    expect(cause.message).toMatch(/entered TASK_STATE_AUTH_REQUIRED 3 times, more than the bound of 2/);
    const taskId = (await waitForStatus(handle, () => true, 'status')).taskId!;
    expect(await deployer.taskState(taskId)).toBe('TASK_STATE_CANCELED');
  });
});

itReplaysItsHistories(suite);
