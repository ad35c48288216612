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
