// 4. Cost per task: history events, signals, updates and payload bytes (over every run of the
// continue-as-new chain), and billable actions as the server itself counts them (its `action`
// metric, which follows Temporal Cloud's published rules) while the task runs alone. Four tasks:
// one that completes at once, one question, one approval, and one-week quiet waits compressed in
// time at 60,000×: a question's, its polls growing with its age; approvals on an agent that streams
// (parked on the worker's shared watch) and on one that pushes (parked on push), each with a backstop poll).
import { readFileSync } from 'node:fs';
import { msToNumber } from '@temporalio/common/lib/time';
import type { Duration } from '@temporalio/common';
import { startDelegatedTask } from '../client/delegated-task';
import { startCodeReviewer, startDeployer, type AgentHandle } from '../demo/agents';
import { DEPLOY, DIFF } from './lib/baseline';
import { actions, diff, settled, sum, type BenchEnv } from './lib/env';
import { chainHistories, eventTypes, payloadBytes } from './lib/history';
import { runIdOf } from './lib/env';
import { size, until, type Record } from './lib/runner';
import { measureWorkflowModules } from './lib/workflow-modules';
import { wireBot } from './seed';
import { loadConfig } from '../runtime/config';
import { WatchPolicySchema } from '../workflows/delegated-task/input';

interface Cost {
  task: string;
  runs: number;
  events: number;
  signals: number;
  updates: number;
  payloadBytes: number;
  actions: number;
  actionTypes: { [type: string]: number };
  eventTypes: { [type: string]: number };
  wallS: number;
}

const WEEK_MS = 7 * 24 * 3600_000;

export async function runCost(env: BenchEnv, record: Record, taskQueue: string): Promise<void> {
  const reviewer = await startCodeReviewer();
  const instant = await startCodeReviewer({ questions: 0 });
  const deployer = await startDeployer();
  const pushDeployer = await startDeployer({ pushNotifications: true });
  const approvers = new Map<string, AgentHandle>();
  const acted = new Map<string, number>();
  const costs: Cost[] = [];
  let quietDay: QuietDay | undefined;
  let weekPolls = 0;
  let pushWeekPolls = 0;
  let streamWeekPolls = 0;
  let streamWeekSubs = 0;
  try {
    const measure = async (
      task: string,
      agent: AgentHandle,
      extra: object,
      during?: (workflowId: string) => Promise<void>,
    ): Promise<void> => {
      const before = await settled(env.server.metricsUrl, actions);
      const t0 = Date.now();
      const h = await startDelegatedTask(
        env.client,
        { agent: { name: agent.name, url: agent.baseUrl }, message: { text: agent.name === 'deployer' ? DEPLOY : DIFF }, planId: `cost-${task}`, ...extra },
        { taskQueue, workflowId: `cost-${task.replace(/\W+/g, '-')}-${t0}` },
      );
      if (agent === deployer || agent === pushDeployer) approvers.set(h.workflowId, agent);
      if (during) await during(h.workflowId);
      await h.result();
      const wallS = (Date.now() - t0) / 1000;
      const actionTypes = diff(await settled(env.server.metricsUrl, actions), before);
      const runs = await chainHistories(env.client, h.workflowId, runIdOf(h));
      const types: { [t: string]: number } = {};
      for (const r of runs) for (const [k, v] of Object.entries(eventTypes(r))) types[k] = (types[k] ?? 0) + v;
      costs.push({
        task,
        runs: runs.length,
        events: runs.reduce((n, r) => n + (r.events?.length ?? 0), 0),
        signals: types.WorkflowExecutionSignaled ?? 0,
        updates: types.WorkflowExecutionUpdateAccepted ?? 0,
        payloadBytes: runs.reduce((n, r) => n + payloadBytes(r), 0),
        actions: sum(actionTypes),
        actionTypes,
        eventTypes: types,
        wallS,
      });
    };
    // The bot answers and approves the instant it is asked, except during the quiet weeks.
    let quiet = false;
    wireBot(env, approvers, acted);
    const answering = env.bot.onAlert;
    env.bot.onAlert = (a) => {
      if (!quiet) answering(a);
    };

    await measure('completes at once', instant, {});
    await measure('one question', reviewer, {});
    await measure('one approval', deployer, {});

    // The quiet weeks: each poll stands for 10 min or more of the real wait.
    const taskOf = async (workflowId: string): Promise<string> => {
      let taskId = '';
      await until('the quiet wait to begin', () => {
        taskId = env.bot.alerts.find((a) => a.workflowId === workflowId)?.taskId ?? '';
        return taskId !== '';
      }, 30_000, 20);
      return taskId;
    };
    quiet = true;
    const getTasks = (agent: AgentHandle, taskId: string): number => agent.log.requests.filter((r) => r.method === 'GetTask' && r.taskId === taskId).length;
    const subs = (agent: AgentHandle, taskId: string): number => agent.log.subscriptions.filter((s) => s.taskId === taskId).length;
    // A question's week, whole and compressed 60,000×: inputPoll 10 min → 10 ms, inputPollMax 24 h →
    // 1,440 ms, a week → 10.08 s. Its polls grow with its age, so this counts them as they fall.
    await measure('one week\'s question wait (compressed 60,000×)', reviewer, { policies: { watch: { inputPoll: '10ms', inputPollMax: '1440ms' } } }, async (workflowId) => {
      const taskId = await taskOf(workflowId);
      await new Promise((r) => setTimeout(r, WEEK_MS / 60_000));
      weekPolls = getTasks(reviewer, taskId);
      quiet = false;
      await env.client.workflow.getHandle(workflowId).executeUpdate('answer', { args: [{ text: 'main' }] });
      quiet = true;
    });
    // An approval's week on an agent that streams but does not push, compressed as the question's:
    // the first lease (5 min → 5 ms) subscribes and alerts, then parks the round on the worker's shared watch, which holds the
    // stream; a backstop GetTask (as on a pushing agent) is all that runs in the workflow. The shared
    // watch's own heartbeats are the worker's, whatever the number of waits: counted apart below.
    await measure('one week\'s approval wait on a streaming agent (compressed 60,000×)', deployer, { policies: { watch: { firstLease: '5ms', pushBackstop: '10ms', inputPollMax: '1440ms' } } }, async (workflowId) => {
      const taskId = await taskOf(workflowId);
      await new Promise((r) => setTimeout(r, WEEK_MS / 60_000));
      streamWeekPolls = getTasks(deployer, taskId);
      streamWeekSubs = subs(deployer, taskId);
      await deployer.approve(taskId);
    });
    // An approval's week on an agent that pushes, whole and compressed 60,000× as the question's:
    // the lease registers push, looks, alerts and returns; a backstop GetTask (pushBackstop 10 min →
    // 10 ms, growing with the wait's age to inputPollMax 24 h → 1,440 ms) is all that runs; the
    // approval arrives as a push.
    await measure('one week\'s approval wait on a pushing agent (compressed 60,000×)', pushDeployer, { policies: { watch: { pushBackstop: '10ms', inputPollMax: '1440ms' } } }, async (workflowId) => {
      const taskId = await taskOf(workflowId);
      await new Promise((r) => setTimeout(r, WEEK_MS / 60_000));
      pushWeekPolls = getTasks(pushDeployer, taskId);
      await pushDeployer.approve(taskId);
    });
    quietDay = await measureQuietDay(env, deployer, taskQueue, taskOf);
    quiet = false;
  } finally {
    await Promise.all([reviewer.close(), instant.close(), deployer.close(), pushDeployer.close()]);
  }
  for (const c of costs) {
    // Issue 21's budgets: the fewer a task's turns, the fewer its events.
    const limit = new Map([['completes at once', 10], ['one question', 20], ['one approval', 16]]).get(c.task);
    const budget = limit === undefined ? {} : { goal: `≤ ${limit} events`, met: c.events <= limit };
    record.add({ section: '4 cost', metric: `${c.task}: history events`, unit: 'events', planner: c.events, note: `${c.runs} run${c.runs > 1 ? 's' : ''}`, ...budget });
    record.add({ section: '4 cost', metric: `${c.task}: signals / updates`, unit: '', planner: `${c.signals} / ${c.updates}` });
    record.add({ section: '4 cost', metric: `${c.task}: payload bytes in history`, unit: 'B', planner: c.payloadBytes });
    const weekGoal = c.task.startsWith("one week's") ? { goal: '≤ 100 actions', met: c.actions <= 100 } : {};
    record.add({ section: '4 cost', metric: `${c.task}: billable actions (server's action metric)`, unit: 'actions', planner: c.actions, ...weekGoal, note: Object.entries(c.actionTypes).map(([k, v]) => `${k.replace(/^grpc_|^command_/, '')} ${v}`).join(', ') });
  }
  record.add({ section: '4 cost', metric: "one week's question wait: GetTask polls (inputPoll 10 min growing with the question's age to inputPollMax 24 h)", unit: 'polls', planner: weekPolls, note: 'a fixed 10-min poll made 1,008' });
  record.add({ section: '4 cost', metric: "one week's approval wait on a streaming agent: backstop GetTask polls / subscriptions", unit: '', planner: `${streamWeekPolls} / ${streamWeekSubs}`, note: 'the shared watch holds one stream; the workflow polls as on a pushing agent' });
  record.add({ section: '4 cost', metric: "one week's approval wait on a pushing agent: backstop GetTask polls (pushBackstop 10 min growing with the wait's age to 24 h)", unit: 'polls', planner: pushWeekPolls });
  // Heartbeats do not compress: the SDK sends at most one per min(0.8 × heartbeatTimeout, 60 s).
  // With PLANNER_SHARED_WATCH=off (a lease each: the first lease at firstHeartbeatTimeout, then
  // heartbeatTimeout) a real week of one approval wait sends this many, each a billable action; the
  // shared watch instead sends one per 0.8 × PLANNER_SHARED_WATCH_HEARTBEAT per worker while it
  // holds any parked stream, shared by all of them. Figures from the defaults, as deployed.
  const sent = (timeoutMs: number): number => Math.min(0.8 * timeoutMs, 60_000);
  const policy = WatchPolicySchema.parse({});
  const [firstLeaseMs, firstBeatMs, beatMs] = [policy.firstLease, policy.firstHeartbeatTimeout, policy.heartbeatTimeout].map((d) => msToNumber(d));
  const hubBeatMs = msToNumber(loadConfig({}).PLANNER_SHARED_WATCH_HEARTBEAT as Duration);
  const weekMs = WEEK_MS;
  const heartbeats = Math.round(firstLeaseMs! / sent(firstBeatMs!) + (weekMs - firstLeaseMs!) / sent(beatMs!));
  record.add({ section: '4 cost', metric: 'one-week approval wait with a lease of its own (PLANNER_SHARED_WATCH=off): heartbeat actions in real time (computed from the SDK throttle)', unit: 'actions', planner: heartbeats });
  const streaming = costs.find((c) => c.task.includes('on a streaming agent'));
  const firstLeaseBeats = Math.round(firstLeaseMs! / sent(firstBeatMs!));
  const hubWeek = Math.round(weekMs / sent(hubBeatMs));
  // A parked wait's share of its worker's hold, at the 10,000 parked the goal is set for.
  const hubShare = hubWeek / 10_000;
  if (streaming) {
    const total = streaming.actions + firstLeaseBeats + hubShare;
    record.add({ section: '4 cost', metric: "one week's approval wait on a streaming agent, with its first lease's heartbeats and its share of the shared watch's in real time", unit: 'actions', planner: Math.round(total), goal: '≤ 100 actions', met: total <= 100, note: `${streaming.actions} measured + ${firstLeaseBeats} heartbeats of the ${policy.firstLease} first lease + ${hubShare.toFixed(1)}, its share of the hold at 10,000 parked` });
  }
  record.add({ section: '4 cost', metric: `the shared watch's hold: heartbeat actions per worker-week while it holds parked streams (computed from the SDK throttle at PLANNER_SHARED_WATCH_HEARTBEAT ${hubBeatMs / 1000} s)`, unit: 'actions', planner: hubWeek, note: `shared by every parked approval of the worker: ${hubShare.toFixed(1)} per wait at 10,000, ${(hubWeek / 1_000).toFixed(0)} at 1,000` });
  // What a workflow start costs the worker before its first line runs: evaluating the modules the
  // workflows import (bench/lib/workflow-modules.ts replays the SDK's per-workflow module cache).
  const modules = await measureWorkflowModules(200, readFileSync(env.bundle, 'utf8'));
  record.add({ section: '4 cost', metric: 'worker CPU per workflow start, evaluating the workflow modules (200 starts)', unit: 'ms', planner: modules.p50Ms, note: `p50; mean ${modules.meanMs.toFixed(2)} ms; ${modules.perWorkflow.length} modules per workflow, ${modules.perWorkflow.filter((id) => /node_modules\/zod\/|a2a\/schema|plans\/schema|delegated-task-input/.test(id)).length} of them zod or a zod schema` });
  if (quietDay) {
    const perDay = (quietDay.events * IDLES_PER_DAY) / quietDay.idles;
    record.add({ section: '4 cost', metric: `a quiet approval wait: history events per day (${quietDay.idles} silent streams ended by the idle timeout, as ${IDLES_PER_DAY} a day at its 5 min default)`, unit: 'events/day', planner: perDay, goal: '0', met: perDay === 0, note: `${quietDay.events} events during the ${quietDay.idles} idle timeouts` });
  }
  record.data.cost = costs;
  record.data.quietDay = quietDay;
  record.data.workflowModules = modules;
}

/** The default idle timeout (5 min) ends a silent stream this often a day. */
const IDLES_PER_DAY = 288;
interface QuietDay {
  idles: number;
  events: number;
}

/**
 * A quiet day of an approval wait, compressed: the agent says nothing, so every idle timeout (100 ms
 * here) ends its stream and the watch asks GetTask and subscribes again. None of it is news: the
 * history events it adds stand for a day's at the default timeout.
 */
async function measureQuietDay(env: BenchEnv, deployer: AgentHandle, taskQueue: string, taskOf: (workflowId: string) => Promise<string>): Promise<QuietDay> {
  const idles = size('BENCH_QUIET_IDLES', 100, 10);
  const h = await startDelegatedTask(
    env.client,
    { agent: { name: deployer.name, url: deployer.baseUrl }, message: { text: DEPLOY }, planId: 'cost-quiet-day', policies: { watch: { idleTimeout: '100ms', firstLease: '1h' } } },
    { taskQueue, workflowId: `cost-quiet-day-${Date.now()}` },
  );
  const taskId = await taskOf(h.workflowId);
  const subs = (): number => deployer.log.subscriptions.filter((s) => s.taskId === taskId).length;
  // The wait has settled once the watch has gone round once (its alert posted, its first look taken).
  await until('the quiet wait to settle', () => subs() >= 2, 30_000, 20);
  const before = (await h.fetchHistory()).events?.length ?? 0;
  const from = subs();
  await until(`${idles} idle timeouts`, () => subs() >= from + idles, 240_000, 20);
  const events = ((await h.fetchHistory()).events?.length ?? 0) - before;
  await deployer.approve(taskId);
  await h.result();
  return { idles, events };
}
