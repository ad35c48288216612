// What one delegated task costs in history: the budget docs/delegated-task.md states, held here.
import { answerTask } from '../client/delegated-task';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, DIFF, eventTypes, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('cost');
let reviewer: AgentHandle;
let instant: AgentHandle;
let deployer: AgentHandle;
let slowDeployer: AgentHandle;
beforeAll(async () => {
  [reviewer, instant, deployer, slowDeployer] = await Promise.all([startCodeReviewer(), startCodeReviewer({ questions: 0 }), startDeployer(), startDeployer({ workMs: 600 })]);
});
afterAll(() => Promise.all([reviewer?.close(), instant?.close(), deployer?.close(), slowDeployer?.close()]));

async function costOf(workflowId: string): Promise<{ events: number; types: Record<string, number> }> {
  const history = await suite.client.workflow.getHandle(workflowId).fetchHistory();
  return { events: history.events!.length, types: eventTypes(history) };
}

it('an instant task, one question and one approval stay within their event budgets', async () => {
  const now = await suite.start({ agent: { name: 'code-reviewer', url: instant.baseUrl }, message: { text: DIFF } });
  expect((await now.result()).state).toBe('TASK_STATE_COMPLETED');

  const asks = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
  await waitForStatus(asks, (x) => x.waitingOn === 'human', 'the question');
  await answerTask(suite.client, asks.workflowId, { text: 'main' });
  await asks.result();

  const waits = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });
  const a = await waitForStatus(waits, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
  await eventually(() => suite.sink.forWorkflow(waits.workflowId)[0], 'the auth alert');
  await deployer.approve(a.taskId!);
  await waits.result();

  const [c1, c2, c3] = await Promise.all([costOf(now.workflowId), costOf(asks.workflowId), costOf(waits.workflowId)]);
  // The budgets of docs/delegated-task.md ("History budget"); 2 of each are the v2 patch marker.
  expect(c1.events).toBeLessThanOrEqual(14);
  expect(c2.events).toBeLessThanOrEqual(34);
  expect(c3.events).toBeLessThanOrEqual(21);
  expect(c3.types.WorkflowExecutionSignaled ?? 0).toBe(0); // approval to completion needs no signal
  for (const c of [c1, c2, c3]) expect(c.types.WorkflowTaskFailed ?? 0).toBe(0); // no signal races the watch's end
});

it('keeps the approval round\'s watch while the agent works on after the approval', async () => {
  // The deploy takes 620 ms after the approval, longer than the watch's 200 ms coalesce window: the
  // watch reports WORKING first, then COMPLETED. Restarting it there cost a watch and ~12 events.
  const waits = await suite.start({ agent: { name: 'deployer', url: slowDeployer.baseUrl }, message: { text: DEPLOY } });
  const a = await waitForStatus(waits, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
  await eventually(() => suite.sink.forWorkflow(waits.workflowId)[0], 'the auth alert');
  await slowDeployer.approve(a.taskId!);
  expect((await waits.result()).state).toBe('TASK_STATE_COMPLETED');
  const history = await suite.client.workflow.getHandle(waits.workflowId).fetchHistory();
  const activities = history.events!.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
  expect(activities).toEqual(['sendMessage', 'watchRemoteTask']);
  // 21 as with a quick agent; + 5 for the WORKING the watch reports after its coalesce window
  // (signal, workflow task, the inbox's upsert); + 2 for the patch that keeps the watch (its
  // marker and the TemporalChangeVersion upsert Core adds to every patch). 33 with the restart.
  expect(history.events!.length).toBeLessThanOrEqual(28);
});

itReplaysItsHistories(suite);
