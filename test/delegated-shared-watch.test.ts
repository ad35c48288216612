// The shared watch: an approval round of an agent that streams but does not push parks on a stream
// the worker holds under one heartbeat; a worker that dies hands all of its parked waits over to
// another worker's shared watch, without a workflow task per wait.
import { createHook } from 'node:async_hooks';
import { asyncLocalStorage as activityContext } from '@temporalio/activity';
import { WatchHubWorkflow } from '../workflows/watch-hub/workflow';
import { parkedWaitsQuery } from '../workflows/watch-hub/messages';
import { jemallocPath } from '../worker/allocator';
import { startDeployer, type AgentHandle } from './agents';
import { startChildWorker, uniqueQueue } from './harness/planner';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { startAlertSink } from './support/alert-sink';
import { DEPLOY, start, waitForStatus, type TaskHandle } from './support/delegated';
import { eventually } from './support/wait';

let deployer: AgentHandle;
const suite = plannerSuite('shared-watch', async () => {
  deployer = await startDeployer();
  return {};
});
afterAll(() => deployer?.close());

/** A first lease of 500 ms, then parked; a backstop far beyond the test: whatever notices the approval, it is not a GetTask poll. */
const noBackstop = { watch: { pushBackstop: '1h', inputPollMax: '1h', firstLease: '500ms' } } as const;
const held = async (h: TaskHandle): Promise<number> => (await h.describe()).raw.pendingActivities?.length ?? 0;
const activities = async (h: TaskHandle): Promise<string[]> =>
  ((await h.fetchHistory()).events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name ?? ''] : []));
const subscriptions = (agent: AgentHandle, taskId: string) => agent.log.subscriptions.filter((s) => s.taskId === taskId && s.firstFrameAt);

it('parks an approval round on the worker’s shared watch after its first lease: subscribed, alerted once, nothing held, the approval ends it', async () => {
  const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, policies: noBackstop });
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
  await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], 'the auth alert');
  await eventually(async () => (await held(handle)) === 0 || undefined, 'no activity held while parked on the shared watch');
  // Subscribe first, alert second: the shared stream's first frame came before the alert.
  const [sub] = subscriptions(deployer, s.taskId!);
  expect(sub!.firstFrameAt!).toBeLessThanOrEqual(suite.sink.forWorkflow(handle.workflowId)[0]!.at);
  expect(await activities(handle)).not.toContain('getRemoteTask'); // no backstop poll ran

  await deployer.approve(s.taskId!);
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
  expect(suite.sink.forWorkflow(handle.workflowId)).toHaveLength(1);
});

it('keeps nothing of the leases that parked its waits: no socket or long timer made in a lease’s context outlives it while its stream is held', async () => {
  // The worker runs in this process. A socket or timer keeps the async context it was made in, and
  // with it the activity (info, loggers, abort controller), for as long as a parked stream holds
  // it: days. Timers of 30 s or less (a finished request's keep-alive) end on their own.
  const madeInLease = new Map<number, string>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (activityContext.getStore()?.info.activityType !== 'watchRemoteTask') return;
      if (type === 'TCPWRAP' || (type === 'Timeout' && (resource as { _idleTimeout: number })._idleTimeout > 30_000)) madeInLease.set(id, type);
    },
    destroy: (id) => void madeInLease.delete(id),
  }).enable();
  try {
    const handles = await Promise.all([0, 1, 2].map(() => suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, policies: noBackstop })));
    const waits = await Promise.all(handles.map((h) => waitForStatus(h, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED')));
    for (const h of handles) await eventually(async () => (await held(h)) === 0 || undefined, `${h.workflowId} parked`);
    // Parked: every lease has ended, and their streams are held by the worker's shared watch.
    expect([...madeInLease.values()]).toEqual([]);
    for (const w of waits) await deployer.approve(w.taskId!);
    for (const h of handles) expect((await h.result()).state).toBe('TASK_STATE_COMPLETED');
  } finally {
    hook.disable();
  }
});

describe('a worker killed while it holds parked waits', () => {
  const queue = uniqueQueue('shared-watch-kill');

  it('hands every parked wait to another worker, whose shared watch adopts and subscribes to each and sees the approvals, with one alert and one message each', async () => {
    const agent = await startDeployer();
    const sink = await startAlertSink();
    const env = { PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: sink.url };
    let worker = await startChildWorker(queue, env);
    try {
      // A worker holding thousands of streams gives freed memory back (worker/allocator.ts).
      expect(worker.output()).toContain(`"allocator":"${jemallocPath() ? 'jemalloc' : 'system'}"`);
      const handles = await Promise.all([0, 1, 2].map(() => start(suite.client, queue, { agent: { name: 'deployer', url: agent.baseUrl }, message: { text: DEPLOY }, policies: noBackstop })));
      suite.track(...handles.map((h) => h.workflowId));
      const waits = await Promise.all(handles.map((h) => waitForStatus(h, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED')));
      for (const h of handles) await eventually(async () => (await held(h)) === 0 || undefined, `${h.workflowId} parked`);
      // The hub runs on the hubs queue, whose short sticky timeout lets a live worker take it soon after the kill.
      const hubs = await list(`WorkflowType = 'WatchHubWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = '${queue}-hubs'`);
      expect(hubs).toHaveLength(1);
      const hub = suite.client.workflow.getHandle<typeof WatchHubWorkflow>(hubs[0]!);
      expect(await hub.query(parkedWaitsQuery)).toBe(3);

      await worker.kill('SIGKILL');
      worker = await startChildWorker(queue, env);
      // The dead worker's hold times out, its hub hands the waits over, the new worker subscribes again.
      for (const w of waits) await eventually(() => subscriptions(agent, w.taskId!).length >= 2 || undefined, `a second subscription to ${w.taskId}`, 60_000);
      await hub.result();
      // Adopted by the new worker's shared watch: no workflow leased a watch again.
      for (const h of handles) expect((await activities(h)).filter((a) => a === 'watchRemoteTask')).toHaveLength(1);
      for (const h of handles) expect(await held(h)).toBe(0);
      for (const w of waits) await agent.approve(w.taskId!);
      for (const h of handles) expect((await h.result()).state).toBe('TASK_STATE_COMPLETED');

      for (const h of handles) {
        expect(await activities(h)).not.toContain('getRemoteTask'); // the streams saw the approvals, not a backstop poll
        expect(agent.log.userMessages.filter((m) => m.messageId.startsWith(`${h.workflowId}/`))).toHaveLength(1);
        expect(new Set(sink.forWorkflow(h.workflowId).map((a) => a.idempotencyKey)).size).toBe(1);
      }
    } finally {
      await worker.kill('SIGTERM');
      await sink.close();
      await agent.close();
    }
  }, 120_000);
});

async function list(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of suite.client.workflow.list({ query })) ids.push(wf.workflowId);
  return ids;
}

itReplaysItsHistories(suite);
