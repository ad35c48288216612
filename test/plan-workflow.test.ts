// PlanWorkflow on the real dev server with real agents: the seed plan end to end, steps in parallel,
// a failed step stopping (or not stopping) the rest, cancellation reaching the agents' tasks, and a
// worker SIGKILLed while one step waits on a human and another on an operator.
import { WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { answerStep, describePlan, startPlan, StepNotWaitingError } from '../client/plan';
import { listInbox } from '../client/inbox';
import { eventTypes, localActivityType, patchId } from '../client/history';
import { CURRENT_PATCH } from '../workflows/versions';
import { planAnswerSignal, type StepChanged } from '../workflows/plan/messages';
import { PlannerWaitingOn } from '../workflows/search-attributes';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { startChildWorker, uniqueQueue } from './harness/planner';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DIFF_TEXT, planDoc, planWorkflowIds, RELEASE_PLAN, step, waitForPlan, type PlanHandle } from './support/plans';
import { eventually } from './support/wait';

const suite = plannerSuite('plans');
let reviewer: AgentHandle;
let deployer: AgentHandle;

beforeAll(async () => {
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
});
afterAll(async () => {
  await Promise.all([reviewer?.close(), deployer?.close()]);
});

const agentUrls = () => ({ 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl });
/** The stepChanged reports a plan received, in order (small payloads: never offloaded by the codec). */
async function stepReports(planId: string): Promise<StepChanged[]> {
  const events = (await suite.client.workflow.getHandle(planId).fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const signal = e.workflowExecutionSignaledEventAttributes;
    return signal?.signalName === 'stepChanged' ? [defaultPayloadConverter.fromPayload<StepChanged>(signal.input!.payloads![0]!)] : [];
  });
}

const messagesTo = (agent: AgentHandle, planId: string) => agent.log.userMessages.filter((m) => m.messageId.startsWith(`${planId}.`));

async function run(doc: unknown, planId?: string): Promise<PlanHandle> {
  const { handle } = await startPlan(suite.client, { plan: doc }, { planId }, { taskQueue: suite.queue });
  suite.track(handle.workflowId);
  return handle;
}

async function trackSteps(handle: PlanHandle): Promise<void> {
  suite.track(...(await planWorkflowIds(suite.client, handle.workflowId)).slice(1));
}

describe('the seed plan (demo/plans/release.yaml)', () => {
  it('asks, is answered, waits for an approval, is approved, completes with both artifacts', async () => {
    const { handle, planId } = await startPlan(suite.client, { planFile: RELEASE_PLAN }, { agentUrls: agentUrls() }, { taskQueue: suite.queue });
    suite.track(planId);

    const asked = await waitForPlan(handle, (s) => step(s, 'review').waitingOn === 'human', 'the review question');
    expect(asked.waitingOn).toBe('human');
    expect(step(asked, 'review')).toMatchObject({ state: 'running', text: BASE_BRANCH_QUESTION, turn: 1, workflowId: `${planId}.review` });
    expect(step(asked, 'deploy').state).toBe('pending');
    // The inbox lists the step's own task, with its plan and step.
    const inbox = await eventually(async () => (await listInbox(suite.client, { planId })).find((e) => e.stepId === 'review'), 'the inbox entry');
    expect(inbox).toMatchObject({ workflowId: `${planId}.review`, planId, waitingOn: 'human', text: BASE_BRANCH_QUESTION });
    // The plan's own search attribute says a human is awaited.
    await eventually(async () => (await handle.describe()).typedSearchAttributes.get(PlannerWaitingOn) === 'human', 'PlannerWaitingOn=human on the plan');

    // The deploy step has not started: an answer to it is a conflict, not a send.
    await expect(answerStep(suite.client, planId, 'deploy', { text: 'main' })).rejects.toThrow(StepNotWaitingError);
    const reply = await answerStep(suite.client, planId, 'review', { text: 'main', from: 'test' });
    expect(reply.state).toBe('TASK_STATE_COMPLETED');

    const approval = await waitForPlan(handle, (s) => step(s, 'deploy').waitingOn === 'operator', 'the approval request');
    expect(approval.waitingOn).toBe('operator');
    const deploy = step(approval, 'deploy');
    expect(deploy.text).toMatch(/An operator must approve this deploy at http:\/\/127\.0\.0\.1:\d+\/approve\//);
    // The deploy message was rendered from the inputs and the review's artifact.
    const [sent] = messagesTo(deployer, planId);
    expect(sent?.text).toContain('Deploy build 2026.10.06-1 of payments-api to staging.');
    expect(sent?.text).toContain('"verdict":"approve"');

    await deployer.approve(deploy.taskId!);
    const result = await handle.result();
    expect(result.state).toBe('completed');
    expect(result.steps.map((s) => [s.id, s.state, s.artifacts.map((a) => a.name)])).toEqual([
      ['review', 'completed', ['review.json']],
      ['deploy', 'completed', ['deploy-result.json']],
    ]);
    // Exactly the messages each agent should have seen: the diff and the answer; the deploy request.
    expect(messagesTo(reviewer, planId).map((m) => m.text.split('\n')[0])).toEqual(['Please review this diff of payments-api:', 'main']);
    expect(messagesTo(deployer, planId)).toHaveLength(1);
    const snapshot = await describePlan(suite.client, planId);
    expect(snapshot).toMatchObject({ workflowStatus: 'COMPLETED', state: 'completed', waitingOn: 'none' });
    expect(snapshot.steps?.map((s) => [s.id, s.remoteState])).toEqual([
      ['review', 'TASK_STATE_COMPLETED'],
      ['deploy', 'TASK_STATE_COMPLETED'],
    ]);
    // Each step reports its waits and their ends to the plan, never its completion (the plan reads
    // that from the child's result): every report sent reached the plan. The question's went with
    // the review's first send, beside its alert (no reportStep of its own, which held the workflow
    // task that takes an answer), so no acknowledgement was left to land in the review's history as
    // the answer's task closed it; the approval's (its task starts the watch) went as a signal.
    const reports = await stepReports(planId);
    const states = reports.map((r) => [r.stepId, r.status.state]);
    expect(states).toEqual(expect.arrayContaining([['review', 'TASK_STATE_INPUT_REQUIRED'], ['deploy', 'TASK_STATE_AUTH_REQUIRED']]));
    expect(states.filter(([, state]) => state === 'TASK_STATE_COMPLETED')).toEqual([]);
    const sentBy: Record<string, [number, number]> = {};
    for (const id of ['review', 'deploy']) {
      const history = await suite.client.workflow.getHandle(`${planId}.${id}`).fetchHistory();
      sentBy[id] = [(history.events ?? []).filter((e) => localActivityType(e) === 'reportStep').length, eventTypes(history).SignalExternalWorkflowExecutionInitiated ?? 0];
      const bySend = id === 'review' ? 1 : 0;
      expect([id, bySend + sentBy[id]![0] + sentBy[id]![1]]).toEqual([id, reports.filter((r) => r.stepId === id).length]);
      // One patch marker, the one that stands for every change before it (workflows/versions.ts):
      // each patch asked first costs a marker and a TemporalChangeVersion upsert.
      expect([id, (history.events ?? []).flatMap((e) => patchId(e) ?? [])]).toEqual([id, [CURRENT_PATCH]]);
      // The review's question was alerted by its first send (no alertOperator of its own); the
      // deploy's approval by its watch.
      expect([id, (history.events ?? []).filter((e) => localActivityType(e) === 'alertOperator').length]).toEqual([id, 0]);
    }
    expect(sentBy).toEqual({ review: [0, 0], deploy: [0, reports.filter((r) => r.stepId === 'deploy').length] });
    // The send's report says what the review's own would have: its question, turn 1, waiting on a person.
    expect(reports.filter((r) => r.stepId === 'review').map((r) => [r.seq, r.status.waitingOn, r.status.turn, r.status.taskId === step(asked, 'review').taskId, r.status.text])).toEqual([[1, 'human', 1, true, BASE_BRANCH_QUESTION]]);
    await trackSteps(handle);
  });
});

describe('order and failure', () => {
  it('starts independent steps at once and routes each answer to the step that asked', async () => {
    const handle = await run(
      planDoc('parallel', { 'code-reviewer': reviewer.baseUrl }, [
        { id: 'left', agent: 'code-reviewer', text: DIFF_TEXT },
        { id: 'right', agent: 'code-reviewer', text: DIFF_TEXT },
        { id: 'join', agent: 'code-reviewer', dependsOn: ['left', 'right'], text: `${DIFF_TEXT}\nleft said {{steps.left.text}}` },
      ]),
    );
    const both = await waitForPlan(handle, (s) => step(s, 'left').waitingOn === 'human' && step(s, 'right').waitingOn === 'human', 'both questions');
    const started = [step(both, 'left').startedAt!, step(both, 'right').startedAt!].map((t) => Date.parse(t));
    expect(Math.abs(started[0]! - started[1]!)).toBeLessThan(1000); // same workflow task, not one after the other
    expect(step(both, 'join').state).toBe('pending');

    // One answer through the client (an update on the step), one as the Temporal UI sends it (a signal on the plan).
    await answerStep(suite.client, handle.workflowId, 'left', { text: 'main' });
    await handle.signal(planAnswerSignal, { stepId: 'right', text: 'develop' });
    const joined = await waitForPlan(handle, (s) => step(s, 'join').waitingOn === 'human', 'the join step asking');
    expect(step(joined, 'left').state).toBe('completed');
    expect(step(joined, 'right').state).toBe('completed');
    await answerStep(suite.client, handle.workflowId, 'join', { text: 'main' });
    const result = await handle.result();
    expect(result.steps.map((s) => s.state)).toEqual(['completed', 'completed', 'completed']);
    const joinMessage = messagesTo(reviewer, handle.workflowId).find((m) => m.messageId.startsWith(`${handle.workflowId}.join/`) && m.text.startsWith('Please'));
    expect(joinMessage?.text).toContain('left said Review complete');
    const rightReview = result.steps.find((s) => s.id === 'right')!.artifacts[0]!;
    expect(JSON.stringify(rightReview.parts)).toContain('"baseBranch":"develop"');
    await trackSteps(handle);
  });

  it('onFailure stop: a failed step cancels the running ones (and their agents\' tasks) and skips the rest', async () => {
    const handle = await run(
      planDoc('stops', { 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl }, [
        { id: 'review', agent: 'code-reviewer', text: DIFF_TEXT },
        { id: 'deploy', agent: 'deployer', text: 'Deploy build 1.2.3 to staging' },
        { id: 'after', agent: 'deployer', dependsOn: ['review'], text: 'Deploy build 1.2.4 to staging' },
      ]),
    );
    const waiting = await waitForPlan(handle, (s) => step(s, 'review').waitingOn === 'human' && step(s, 'deploy').waitingOn === 'operator', 'both waits');
    const deployTask = step(waiting, 'deploy').taskId!;
    // A branch name with a space makes the reviewer fail the task.
    await answerStep(suite.client, handle.workflowId, 'review', { text: 'no such branch' });
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause?.message).toMatch(/^plan stops: step review \(code-reviewer\) failed: .*Base branch "no such branch" does not exist/);
    const s = await describePlan(suite.client, handle.workflowId);
    expect(s.steps?.map((x) => [x.id, x.state])).toEqual([
      ['review', 'failed'],
      ['deploy', 'cancelled'],
      ['after', 'skipped'],
    ]);
    expect(step(s as never, 'after').reason).toBe('not started: step review failed');
    // The failed step's last report, sent in the workflow task that closed it, reached the plan: a
    // failed child returns no state, so the plan shows the remote one from that report.
    expect(s.steps?.map((x) => [x.id, x.remoteState])).toEqual([
      ['review', 'TASK_STATE_FAILED'],
      ['deploy', 'TASK_STATE_CANCELED'],
      ['after', undefined],
    ]);
    expect(await deployer.taskState(deployTask)).toBe('TASK_STATE_CANCELED');
    expect(s.result?.state).toBe('failed');
    await trackSteps(handle);
  });

  it('onFailure continue: only the dependents are skipped; a substitution that finds nothing fails its step', async () => {
    const handle = await run(
      planDoc('continues', { 'code-reviewer': reviewer.baseUrl }, [
        { id: 'bad', agent: 'code-reviewer', text: 'no diff here', onFailure: 'continue' },
        { id: 'dependent', agent: 'code-reviewer', dependsOn: ['bad'], text: DIFF_TEXT },
        { id: 'good', agent: 'code-reviewer', text: DIFF_TEXT },
        { id: 'missing', agent: 'code-reviewer', dependsOn: ['good'], text: '{{steps.good.artifacts.nope.json}}', onFailure: 'continue' },
      ]),
    );
    await waitForPlan(handle, (s) => step(s, 'good').waitingOn === 'human', 'the good step asking');
    await answerStep(suite.client, handle.workflowId, 'good', { text: 'main' });
    const err = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const s = await describePlan(suite.client, handle.workflowId);
    expect(Object.fromEntries(s.steps!.map((x) => [x.id, x.state]))).toEqual({ bad: 'failed', dependent: 'skipped', good: 'completed', missing: 'failed' });
    expect(step(s as never, 'bad').reason).toMatch(/REJECTED.*no diff/);
    expect(step(s as never, 'missing').reason).toBe('{{steps.good.artifacts.nope.json}}: step good produced no artifact named nope.json (it produced: review.json)');
    await trackSteps(handle);
  });

  it('cancelling a plan cancels its waiting steps and, through them, the agents\' tasks', async () => {
    const handle = await run(
      planDoc('cancelled', { 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl }, [
        { id: 'review', agent: 'code-reviewer', text: DIFF_TEXT },
        { id: 'deploy', agent: 'deployer', text: 'Deploy build 9.9.9 to staging' },
        { id: 'later', agent: 'deployer', dependsOn: ['deploy'], text: 'Deploy build 9.9.10 to staging' },
      ]),
    );
    const waiting = await waitForPlan(handle, (s) => step(s, 'review').waitingOn === 'human' && step(s, 'deploy').waitingOn === 'operator', 'both waits');
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    for (const id of ['review', 'deploy']) {
      expect((await suite.client.workflow.getHandle(`${handle.workflowId}.${id}`).describe()).status.name).toBe('CANCELLED');
    }
    expect(await reviewer.taskState(step(waiting, 'review').taskId!)).toBe('TASK_STATE_CANCELED');
    expect(await deployer.taskState(step(waiting, 'deploy').taskId!)).toBe('TASK_STATE_CANCELED');
    const s = await describePlan(suite.client, handle.workflowId);
    expect(s.steps?.map((x) => x.state)).toEqual(['cancelled', 'cancelled', 'skipped']);
    await trackSteps(handle);
  });
});

describe('a worker SIGKILLed while one step waits on a human and another on an operator', () => {
  const queue = uniqueQueue('plan-killed');
  it('a new worker finishes the plan; no agent saw a message twice', async () => {
    let worker = await startChildWorker(queue);
    try {
      const { handle, planId } = await startPlan(
        suite.client,
        {
          plan: planDoc('killed', agentUrls(), [
            { id: 'review', agent: 'code-reviewer', text: DIFF_TEXT },
            { id: 'deploy', agent: 'deployer', text: 'Deploy build 2026.10.06-1 to staging' },
          ]),
        },
        {},
        { taskQueue: queue },
      );
      const waiting = await waitForPlan(handle, (s) => step(s, 'review').waitingOn === 'human' && step(s, 'deploy').waitingOn === 'operator', 'both waits', 30_000);
      await worker.kill('SIGKILL');
      worker = await startChildWorker(queue);
      // A query right after a kill may first go to the dead worker's sticky queue: ask until answered.
      await eventually(async () => (await describePlan(suite.client, planId)).statusQueryError === undefined, 'the new worker answering queries', 30_000);
      await answerStep(suite.client, planId, 'review', { text: 'main' });
      await deployer.approve(step(waiting, 'deploy').taskId!);
      const result = await handle.result();
      expect(result.steps.map((s) => s.state)).toEqual(['completed', 'completed']);
      const ids = (agent: AgentHandle) => messagesTo(agent, planId).map((m) => m.messageId);
      expect(ids(reviewer)).toHaveLength(2);
      expect(new Set(ids(reviewer)).size).toBe(2);
      expect(ids(deployer)).toHaveLength(1);
      suite.track(...(await planWorkflowIds(suite.client, planId)));
    } finally {
      await worker.kill('SIGTERM');
    }
  }, 120_000);
});

itReplaysItsHistories(suite);
