// Crashes, dropped streams, ambiguous sends and agents that cannot stream.
import { answerTask } from '../client/delegated-task';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { startChildWorker, uniqueQueue } from './harness/planner';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { startCuttingProxy } from './support/cutting-proxy';
import { startAlertSink } from './support/alert-sink';
import { DEPLOY, DIFF, start, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('resilience');
const fastWatch = { heartbeatTimeout: '3s', pollInitial: '200ms', pollMax: '1s' } as const;

const sent = (agent: AgentHandle, workflowId: string) => agent.log.userMessages.filter((m) => m.messageId.startsWith(`${workflowId}/`));

describe('with in-process workers', () => {
  it('survives a stream dropped while the task is not terminal: GetTask, resubscribe, complete', async () => {
    // Three cuts: the streamed first send, then the first two subscriptions.
    const deployer = await startDeployer({ dropStreams: 3 });
    try {
      const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });
      const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
      await eventually(() => deployer.log.subscriptions.length >= 3, 'resubscriptions after the cuts');
      expect(deployer.log.requests.filter((r) => r.method === 'GetTask').length).toBeGreaterThanOrEqual(2);
      await deployer.approve(s.taskId!);
      const result = await handle.result();
      expect(result.state).toBe('TASK_STATE_COMPLETED');
      expect(sent(deployer, handle.workflowId)).toHaveLength(1);
    } finally {
      await deployer.close();
    }
  });

  it('completes an agent without streaming through polling', async () => {
    const deployer = await startDeployer({ streaming: false });
    try {
      const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });
      const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
      // Approve only once the poll runs (the operator is alerted then), so the poll is what sees it.
      await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], 'the auth alert');
      await deployer.approve(s.taskId!);
      const result = await handle.result();
      expect(result.state).toBe('TASK_STATE_COMPLETED');
      expect(deployer.log.subscriptions).toHaveLength(0);
      expect(deployer.log.requests.filter((r) => r.method === 'GetTask').length).toBeGreaterThanOrEqual(2);
    } finally {
      await deployer.close();
    }
  });

  it('sends no second message when the answer reached the agent but its reply was lost', async () => {
    const reviewer = await startCodeReviewer();
    const proxy = await startCuttingProxy(reviewer.baseUrl);
    try {
      const handle = await suite.start({ agent: { name: 'code-reviewer', url: proxy.baseUrl }, message: { text: DIFF } });
      const q = await waitForStatus(handle, (x) => x.waitingOn === 'human', 'the question');
      proxy.cutNext((body) => new RegExp(`"${handle.workflowId}/[^"]*/1"`).test(body)); // the answer to turn 1
      const reply = await answerTask(suite.client, handle.workflowId, { text: 'main' });
      expect(proxy.cut).toHaveLength(1);
      expect(reply.state).toBe('TASK_STATE_COMPLETED');
      const result = await handle.result();
      expect(result.artifacts[0]?.parts[0]).toMatchObject({ data: { baseBranch: 'main' } });
      const mine = sent(reviewer, handle.workflowId);
      expect(mine.map((m) => m.text)).toEqual([DIFF, 'main']);
      expect(mine[1]?.taskId).toBe(q.taskId);
    } finally {
      await proxy.close();
      await reviewer.close();
    }
  });
});

describe('a worker killed while waiting', () => {
  const queue = uniqueQueue('killed');

  it('resumes after a SIGKILL in INPUT_REQUIRED, and again after one in AUTH_REQUIRED, without duplicate messages or alerts', async () => {
    const reviewer = await startCodeReviewer();
    const deployer = await startDeployer();
    const sink = await startAlertSink();
    const env = { PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: sink.url };
    let worker = await startChildWorker(queue, env);
    try {
      const review = await start(suite.client, queue, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, policies: { watch: fastWatch } });
      const deploy = await start(suite.client, queue, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });
      suite.track(review.workflowId, deploy.workflowId);
      const q = await waitForStatus(review, (x) => x.waitingOn === 'human', 'the question');
      const a = await waitForStatus(deploy, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
      await eventually(() => deployer.log.subscriptions.find((s) => s.firstFrameAt), 'the first subscription');

      // Kill 1, while a human is asked: the answer goes to the next worker.
      await worker.kill('SIGKILL');
      worker = await startChildWorker(queue, env);
      const reply = await answerTask(suite.client, review.workflowId, { text: 'main' });
      expect(reply.state).toBe('TASK_STATE_COMPLETED');
      expect((await review.result()).state).toBe('TASK_STATE_COMPLETED');
      // The deploy's watch died with it: the new worker subscribes again (heartbeat timeout, retry).
      await eventually(() => deployer.log.subscriptions.filter((s) => s.firstFrameAt).length >= 2, 'a second subscription', 30_000);

      // Kill 2, while the operator is asked: the watch moves once more, and the approval is still seen.
      await worker.kill('SIGKILL');
      worker = await startChildWorker(queue, env);
      await eventually(() => deployer.log.subscriptions.filter((s) => s.firstFrameAt).length >= 3, 'a third subscription', 30_000);
      // A query right after a kill may first go to the dead worker's sticky queue: ask until answered.
      const still = await waitForStatus(deploy, () => true, 'a status answer from the new worker', 30_000);
      expect(still.state).toBe('TASK_STATE_AUTH_REQUIRED');
      await deployer.approve(a.taskId!);
      expect((await deploy.result()).state).toBe('TASK_STATE_COMPLETED');

      expect(sent(reviewer, review.workflowId)).toHaveLength(2);
      expect(sent(reviewer, review.workflowId)[1]?.taskId).toBe(q.taskId);
      expect(sent(deployer, deploy.workflowId)).toHaveLength(1);
      // One alert per wait: a watch that moves to another worker does not page the operator again.
      // Delivery is at least once (a kill between the POST and its completion retries it), so a
      // receiver pages once per Idempotency-Key.
      const pages = (id: string) => new Set(sink.forWorkflow(id).map((a) => a.idempotencyKey));
      expect(pages(review.workflowId).size).toBe(1);
      expect(pages(deploy.workflowId).size).toBe(1);
    } finally {
      await worker.kill('SIGTERM');
      await sink.close();
      await reviewer.close();
      await deployer.close();
    }
  }, 120_000);
});

describe('a worker killed inside the first send, a local attempt that leaves no record', () => {
  const queue = uniqueQueue('local-send');

  it('lets the next worker reconcile the first message instead of sending it again, then completes', async () => {
    // The deployer works 2.5 s before it asks for approval: the local send holds its stream (WORKING) meanwhile.
    const deployer = await startDeployer({ workMs: 2_500 });
    let worker = await startChildWorker(queue);
    try {
      const deploy = await start(suite.client, queue, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });
      suite.track(deploy.workflowId);
      await eventually(() => sent(deployer, deploy.workflowId)[0], 'the first message at the agent');
      await worker.kill('SIGKILL');
      worker = await startChildWorker(queue);
      const a = await waitForStatus(deploy, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED', 45_000);
      await deployer.approve(a.taskId!);
      expect((await deploy.result()).state).toBe('TASK_STATE_COMPLETED');
      expect(sent(deployer, deploy.workflowId)).toHaveLength(1);
      // The dead worker's workflow task timed out; the send activity that followed found the task by ListTasks.
      const history = await deploy.fetchHistory();
      expect(history.events!.some((e) => e.workflowTaskTimedOutEventAttributes)).toBe(true);
      const scheduled = history.events!.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
      expect(scheduled[0]).toBe('sendMessage');
      expect(deployer.log.requests.filter((r) => r.method === 'ListTasks').length).toBeGreaterThanOrEqual(1);
    } finally {
      await worker.kill('SIGTERM');
      await deployer.close();
    }
  }, 90_000);

  it('lets the next worker find a local answer in the task\'s history instead of sending it again', async () => {
    // The reviewer works 2 s on each message: the local answer's blocking send is in flight meanwhile.
    const reviewer = await startCodeReviewer({ workMs: 2_000 });
    let worker = await startChildWorker(queue);
    try {
      const review = await start(suite.client, queue, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, policies: { watch: fastWatch } });
      suite.track(review.workflowId);
      await waitForStatus(review, (x) => x.waitingOn === 'human', 'the question', 30_000);
      const answering = answerTask(suite.client, review.workflowId, { text: 'main' }).catch((e: unknown) => e);
      await eventually(() => sent(reviewer, review.workflowId)[1], 'the answer at the agent');
      await worker.kill('SIGKILL');
      worker = await startChildWorker(queue);
      expect((await review.result()).state).toBe('TASK_STATE_COMPLETED');
      expect(sent(reviewer, review.workflowId).map((m) => m.text)).toEqual([DIFF, 'main']);
      expect((await review.fetchHistory()).events!.some((e) => e.workflowTaskTimedOutEventAttributes)).toBe(true);
      await answering;
    } finally {
      await worker.kill('SIGTERM');
      await reviewer.close();
    }
  }, 90_000);
});

describe('a worker killed right after the alert, at the default heartbeat policy', () => {
  const queue = uniqueQueue('handover');

  it('hands the watch over within seconds, so an approval made meanwhile is noticed at once', async () => {
    const deployer = await startDeployer();
    const sink = await startAlertSink();
    const env = { PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: sink.url };
    let worker = await startChildWorker(queue, env);
    try {
      // No watch policy given: the defaults are what is measured.
      const deploy = await start(suite.client, queue, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });
      suite.track(deploy.workflowId);
      const a = await waitForStatus(deploy, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
      await eventually(() => sink.forWorkflow(deploy.workflowId)[0], 'the auth alert');
      await worker.kill('SIGKILL');
      worker = await startChildWorker(queue, env);
      const approvedAt = Date.now();
      await deployer.approve(a.taskId!);
      const result = await Promise.race([
        deploy.result(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('not completed 30 s after the approval')), 30_000)),
      ]);
      expect(result.state).toBe('TASK_STATE_COMPLETED');
      // The first lease heartbeats every 10 s / 3; a dead worker's watch is retried after 10 s.
      expect(Date.now() - approvedAt).toBeLessThan(20_000);
      expect(new Set(sink.forWorkflow(deploy.workflowId).map((x) => x.idempotencyKey)).size).toBe(1);
    } finally {
      await worker.kill('SIGTERM');
      await sink.close();
      await deployer.close();
    }
  }, 90_000);
});

itReplaysItsHistories(suite);
