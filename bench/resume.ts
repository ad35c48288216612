// 2. Resume latency: approval (the POST outside A2A) → the planner's observation of the resume and
// → the workflow's completion; answer (the update sent) → the agent's receipt of the message. The
// answer is sent inside the workflow task that accepts it, so the acceptance comes after the receipt:
// both sides are timed from the call.
// Baseline: the plain @a2a-js/sdk client reading its own stream (approval → next frame, → COMPLETED)
// and sending its own answer (call → receipt). Rounds of BENCH_RESUME_CONCURRENCY tasks of each
// kind alternate between planner and baseline, and the floor (bench/floor/: the least Temporal code
// of the planner's shape), whose p99s say what Temporal's shape alone costs here.
import { TaskState } from '@a2a-js/sdk';
import { WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import { startDelegatedTask } from '../client/delegated-task';
import { answerUpdate } from '../workflows/delegated-task/messages';
import { startCodeReviewer, startDeployer } from '../demo/agents';
import { connect, deploy, userMessage, DEPLOY, DIFF } from './lib/baseline';
import type { BenchEnv } from './lib/env';
import { eventMs } from './lib/history';
import { dist, fmt, interleaveMany, size, type Record } from './lib/runner';
import type { Floor } from './floor/run';

export async function runResume(env: BenchEnv, record: Record, taskQueue: string, floor: Floor): Promise<void> {
  const events = size('BENCH_RESUME_EVENTS', 200, 10);
  const k = size('BENCH_RESUME_CONCURRENCY', 8, 1);
  const rounds = Math.ceil(events / k);
  const reviewer = await startCodeReviewer();
  const deployer = await startDeployer();
  const [rc, dc] = await Promise.all([connect(reviewer.baseUrl), connect(deployer.baseUrl)]);
  const approvedAt = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  env.bot.onAlert = (a) => {
    if (a.workflowId.startsWith('floor-')) {
      (a.kind === 'input' ? answeredAt : approvedAt).set(a.workflowId, Date.now());
      floor.onAlert(a);
      return;
    }
    if (a.kind === 'input') {
      answeredAt.set(a.workflowId, Date.now());
      void env.client.workflow
        .getHandle(a.workflowId)
        .startUpdate(answerUpdate, { args: [{ text: 'main' }], waitForStage: WorkflowUpdateStage.ACCEPTED })
        .catch((e: unknown) => console.error(`bot answer ${a.workflowId}: ${String(e)}`));
    } else if (a.kind === 'auth') {
      approvedAt.set(a.workflowId, Date.now());
      void deployer.approve(a.taskId).catch((e: unknown) => console.error(`bot approve ${a.taskId}: ${String(e)}`));
    }
  };
  const p = { observe: [] as number[], complete: [] as number[], receipt: [] as number[] };
  const b = { observe: [] as number[], complete: [] as number[], receipt: [] as number[] };
  const f = { observe: [] as number[], complete: [] as number[], receipt: [] as number[] };
  const receiptOf = (prefix: string, suffix: string): number | undefined =>
    reviewer.log.userMessages.find((m) => m.messageId.startsWith(prefix) && m.messageId.endsWith(suffix))?.at;

  /** A review's answer → receipt, and a deploy's approval → the resume observed and → completed, from its history. */
  const measure = async (r: { workflowId: string }, d: WorkflowHandle, into: typeof p): Promise<void> => {
    const answered = answeredAt.get(r.workflowId);
    const receipt = receiptOf(`${r.workflowId}/`, '/1');
    if (answered !== undefined && receipt) into.receipt.push(receipt - answered);
    const dh = (await d.fetchHistory()).events ?? [];
    const at = approvedAt.get(d.workflowId);
    if (at === undefined) throw new Error(`no approval recorded for ${d.workflowId}`);
    // The planner observes the resume when the watch reports it: a signal or the watch's result.
    const seen = dh.find((e) => eventMs(e) >= at && (e.workflowExecutionSignaledEventAttributes || e.activityTaskCompletedEventAttributes));
    const done = dh.find((e) => e.workflowExecutionCompletedEventAttributes);
    if (seen) into.observe.push(eventMs(seen) - at);
    if (done) into.complete.push(eventMs(done) - at);
  };
  const plannerRound = async (round: number): Promise<void> => {
    await Promise.all(
      Array.from({ length: k }, async (_, j) => {
        const planId = `resume-${round}-${j}`;
        const [r, d] = await Promise.all([
          startDelegatedTask(env.client, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, planId }, { taskQueue }),
          startDelegatedTask(env.client, { agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, planId }, { taskQueue }),
        ]);
        await Promise.all([r.result(), d.result()]);
        await measure(r, d, p);
      }),
    );
  };
  const floorRound = async (round: number): Promise<void> => {
    await Promise.all(
      Array.from({ length: k }, async (_, j) => {
        const tag = `${round}-${j}-${Date.now()}`;
        const [r, d] = await Promise.all([floor.task(`floor-resume-review-${tag}`, reviewer, DIFF), floor.task(`floor-resume-deploy-${tag}`, deployer, DEPLOY)]);
        await measure(r, d, f);
      }),
    );
  };
  const baselineRound = async (): Promise<void> => {
    await Promise.all(
      Array.from({ length: k }, async () => {
        const [, t] = await Promise.all([
          (async () => {
            const first = (await rc.sendMessage({ tenant: '', message: userMessage(DIFF), configuration: undefined, metadata: undefined })) as { id: string; contextId: string; status?: { state: TaskState } };
            const answer = userMessage('main', first);
            const sent = Date.now();
            await rc.sendMessage({ tenant: '', message: answer, configuration: undefined, metadata: undefined });
            const receipt = receiptOf(answer.messageId, answer.messageId);
            if (receipt) b.receipt.push(receipt - sent);
          })(),
          deploy(dc, (taskId) => deployer.approve(taskId)),
        ]);
        b.observe.push(t.resumedAt - t.approvedAt);
        b.complete.push(t.completedAt - t.approvedAt);
      }),
    );
  };
  try {
    await interleaveMany(1, [plannerRound, baselineRound, floorRound]); // warm-up
    for (const x of [p, b, f]) for (const xs of Object.values(x)) xs.length = 0;
    await interleaveMany(rounds, [plannerRound, baselineRound, floorRound]);
  } finally {
    await Promise.all([reviewer.close(), deployer.close()]);
  }
  // Goals of issue 21: the answer is one send, so it gets half the budget of a resume.
  const rows: [string, number[], number[], number][] = [
    ['approval → planner observes the resume', p.observe, b.observe, 100],
    ['approval → workflow completed', p.complete, b.complete, 100],
    ['answer (update sent) → agent receives it', p.receipt, b.receipt, 50],
  ];
  for (const [name, xs, ys, goalMs] of rows) {
    const dp = dist(xs);
    const db = dist(ys);
    record.add({ section: '2 resume', metric: `${name} p50`, unit: 'ms', planner: dp.p50, baseline: db.p50, note: `n=${dp.n}` });
    record.add({ section: '2 resume', metric: `${name} p95`, unit: 'ms', planner: dp.p95, baseline: db.p95 });
    record.add({ section: '2 resume', metric: `${name} p99`, unit: 'ms', planner: dp.p99, baseline: db.p99, goal: `≤ ${goalMs} ms`, met: dp.p99 <= goalMs });
  }
  for (const [name, xs, ys] of [['approval → workflow completed', f.complete, b.complete], ['answer (update sent) → agent receives it', f.receipt, b.receipt]] as const) {
    const [df, db] = [dist(xs), dist(ys)];
    record.add({ section: '2 resume', metric: `the floor (bench/floor/): ${name} p50 / p99`, unit: 'ms', planner: `${fmt(df.p50, '')} / ${fmt(df.p99, 'ms')}`, baseline: `${fmt(db.p50, '')} / ${fmt(db.p99, 'ms')}`, note: `n=${df.n}` });
  }
  record.data.resume = { concurrency: k, planner: p, baseline: b, floor: f };
}
