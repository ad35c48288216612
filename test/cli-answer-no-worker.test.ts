// `planner answer` when no worker polls the workflow's task queue: an update would wait for one in
// silence, so the CLI says so at once, records the answer as the durable `answer` signal and exits
// 3; a worker that starts later sends that answer to the agent, bound to the turn that was asked.
import { startCodeReviewer, type AgentHandle } from './agents';
import { startWorkers, uniqueQueue } from './harness/planner';
import { DIFF, waitForStatus } from './support/delegated';
import { escapeRegExp, expectOneLineError, spawnPlanner } from './support/planner-cli';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DIFF_TEXT, planDoc, step, waitForPlan } from './support/plans';
import { startPlan } from '../client/plan';
import { workflowPollers } from '../client/workflows';
import type { DelegatedTaskWorkflow } from '../workflows/delegated-task/workflow';

const suite = plannerSuite('answer-no-worker', undefined, { workers: false });
let reviewer: AgentHandle;
beforeAll(async () => {
  reviewer = await startCodeReviewer();
});
afterAll(() => reviewer?.close());

// The guard against a CLI that hangs (before the fix it printed nothing and never returned).
const cli = (args: string[]) => spawnPlanner(suite.queue, args, { killAfterMs: 60_000 }).exit;

it('says no worker polls the queue, records the answer, exits 3; a worker started later sends it', async () => {
  let workers = await startWorkers(suite.queue);
  const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
  const asked = await waitForStatus(handle, (x) => x.waitingOn === 'human', 'the question');
  await workers.stop();

  // A turn that is not the one asked is refused here (exit 1), by the turn the task published.
  const stale = await cli(['answer', handle.workflowId, 'release-6', '--turn', String(asked.turn + 1)]);
  expectOneLineError(stale, 1, new RegExp(`^planner answer: answer rejected: the answer names turn ${asked.turn + 1}, but the current question is turn ${asked.turn}$`, 'm'));

  const r = await cli(['answer', handle.workflowId, 'release-7']);
  const queue = escapeRegExp(JSON.stringify(suite.queue));
  expectOneLineError(r, 3, new RegExp(`^planner answer: no worker is polling task queue ${queue}: the answer to question ${asked.turn} is recorded and will be sent when a worker starts`));
  expect(r.stdout).toBe('');

  workers = await startWorkers(suite.queue);
  try {
    const result = await handle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(result.artifacts[0]?.parts[0]).toMatchObject({ data: { baseBranch: 'release-7' } });
  } finally {
    await workers.stop();
  }
});

it('lists the workers that poll a queue, and none on a queue nobody polls', async () => {
  const workers = await startWorkers(suite.queue);
  try {
    expect((await workflowPollers(suite.client, suite.queue)).length).toBeGreaterThan(0);
  } finally {
    await workers.stop();
  }
  expect(await workflowPollers(suite.client, uniqueQueue('nobody'))).toEqual([]);
});

it("a plan's step: the answer is recorded with the plan, exit 3; the plan passes it on when a worker starts", async () => {
  let workers = await startWorkers(suite.queue);
  const doc = planDoc('no-worker', { 'code-reviewer': reviewer.baseUrl }, [{ id: 'review', agent: 'code-reviewer', text: DIFF_TEXT }]);
  const { handle, planId } = await startPlan(suite.client, { plan: doc }, {}, { taskQueue: suite.queue });
  suite.track(planId, `${planId}.review`);
  await waitForPlan(handle, (x) => step(x, 'review').waitingOn === 'human', 'the question');
  await workers.stop();

  const r = await cli(['answer', planId, 'review', 'release-8']);
  const queue = escapeRegExp(JSON.stringify(suite.queue));
  expectOneLineError(r, 3, new RegExp(`^planner answer: no worker is polling task queue ${queue}: the answer to step review is recorded with the plan`));

  workers = await startWorkers(suite.queue);
  try {
    expect((await handle.result()).steps.map((x) => x.state)).toEqual(['completed']);
    const review = await suite.client.workflow.getHandle<typeof DelegatedTaskWorkflow>(`${planId}.review`).result();
    expect(review.artifacts[0]?.parts[0]).toMatchObject({ data: { baseBranch: 'release-8' } });
  } finally {
    await workers.stop();
  }
});

itReplaysItsHistories(suite);
