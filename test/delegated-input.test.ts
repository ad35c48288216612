// INPUT_REQUIRED: the workflow publishes the question, waits for an answer (update or signal), and
// sends it on the same task and context.
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { answerTask } from '../client/delegated-task';
import { answerSignal, statusQuery } from '../workflows/delegated-task/messages';
import { BASE_BRANCH_QUESTION, MIGRATIONS_QUESTION, startCodeReviewer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DIFF, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('input');

describe('code reviewer (INPUT_REQUIRED)', () => {
  let reviewer: AgentHandle;
  beforeAll(async () => {
    reviewer = await startCodeReviewer();
  });
  afterAll(() => reviewer.close());

  it('waits for the answer, then completes with review.json on the same task and context', async () => {
    const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, planId: 'plan-review-1' });
    const waiting = await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');
    expect(waiting.text).toBe(BASE_BRANCH_QUESTION);
    expect(waiting.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(waiting.turn).toBe(1);

    // The inbox is a visibility query.
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const wf of suite.client.workflow.list({ query: `PlannerWaitingOn = "human" AND A2aAgent = "code-reviewer" AND PlanId = "plan-review-1"` })) ids.push(wf.workflowId);
      return ids.includes(handle.workflowId) ? ids : undefined;
    }, 'visibility to list the waiting workflow');
    expect(found).toContain(handle.workflowId);

    // The question is in the workflow's current details, the summary names the agent.
    const desc = await handle.describe();
    expect(await desc.staticSummary()).toBe('code-reviewer: Please review this diff of payments-api:');
    const details = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(details.currentDetails).toContain(BASE_BRANCH_QUESTION);
    expect(desc.typedSearchAttributes.get({ name: 'A2aTaskId', type: 'KEYWORD' } as never)).toBeDefined();

    // The operator was alerted with the agent's own question.
    const alert = await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], 'the input alert');
    expect(alert.body).toMatchObject({ kind: 'input', agent: 'code-reviewer', taskId: waiting.taskId, text: BASE_BRANCH_QUESTION, planId: 'plan-review-1' });
    expect(alert.body.uiUrl).toContain(`/workflows/${handle.workflowId}`);
    expect(alert.idempotencyKey).toBeDefined();

    const reply = await answerTask(suite.client, handle.workflowId, { text: 'main', turn: 1 });
    expect(reply.state).toBe('TASK_STATE_COMPLETED');
    const result = await handle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    const review = result.artifacts.find((a) => a.name === 'review.json');
    expect(review?.parts[0]).toMatchObject({ data: { baseBranch: 'main', verdict: 'approve' } });

    const mine = reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${handle.workflowId}/`));
    expect(mine).toHaveLength(2);
    expect(mine[1]).toMatchObject({ taskId: waiting.taskId, contextId: waiting.contextId, text: 'main' });
    expect(new Set(mine.map((m) => m.messageId)).size).toBe(2);
    const after = await handle.describe();
    expect(after.status.name).toBe('COMPLETED');
  });

  it('rejects an answer while nothing waits, and a signal answer from the UI works', async () => {
    const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
    await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');
    await expect(answerTask(suite.client, handle.workflowId, { text: '   ' })).rejects.toThrow(WorkflowUpdateFailedError);
    await expect(answerTask(suite.client, handle.workflowId, { text: 'main', turn: 7 })).rejects.toThrow(WorkflowUpdateFailedError);
    await handle.signal(answerSignal, { text: 'develop' });
    const result = await handle.result();
    expect(result.artifacts[0]?.parts[0]).toMatchObject({ data: { baseBranch: 'develop' } });
    await expect(answerTask(suite.client, handle.workflowId, { text: 'late' })).rejects.toThrow();
  });
});

describe('an agent that asks twice', () => {
  let reviewer: AgentHandle;
  beforeAll(async () => {
    reviewer = await startCodeReviewer({ questions: 2, preferredBinding: 'HTTP+JSON' });
  });
  afterAll(() => reviewer.close());

  it('sends both answers on the same task with their own messageIds and rejects a stale answer', async () => {
    const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
    const q1 = await waitForStatus(handle, (s) => s.turn === 1 && s.waitingOn === 'human', 'question 1');
    expect(q1.text).toBe(BASE_BRANCH_QUESTION);
    const r1 = await answerTask(suite.client, handle.workflowId, { text: 'main', turn: 1 });
    expect(r1).toMatchObject({ turn: 1, state: 'TASK_STATE_INPUT_REQUIRED', text: MIGRATIONS_QUESTION });
    const q2 = await waitForStatus(handle, (s) => s.turn === 2, 'question 2');
    expect(q2.text).toBe(MIGRATIONS_QUESTION);
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toContain(MIGRATIONS_QUESTION);
    expect(meta.currentDetails).toContain('question turn 2');

    const stale = answerTask(suite.client, handle.workflowId, { text: 'main again', turn: 1 });
    await expect(stale).rejects.toThrow(WorkflowUpdateFailedError);
    await expect(stale).rejects.toMatchObject({ cause: { message: expect.stringContaining('current question is turn 2') } });

    const r2 = await answerTask(suite.client, handle.workflowId, { text: 'yes', turn: 2 });
    expect(r2.state).toBe('TASK_STATE_COMPLETED');
    await handle.result();
    const mine = reviewer.log.userMessages.filter((m) => m.messageId.startsWith(handle.workflowId));
    expect(mine.map((m) => m.text)).toEqual([DIFF, 'main', 'yes']);
    expect(mine.slice(1).every((m) => m.taskId === q1.taskId && m.contextId === q1.contextId)).toBe(true);
    expect(new Set(mine.map((m) => m.messageId)).size).toBe(3);
  });
});

describe('an agent that ends the task badly', () => {
  let reviewer: AgentHandle;
  beforeAll(async () => {
    reviewer = await startCodeReviewer();
  });
  afterAll(() => reviewer.close());

  const failureOf = async (p: Promise<unknown>): Promise<{ type?: string; message: string }> => {
    const err = await p.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    return (err as WorkflowFailedError).cause as { type?: string; message: string };
  };

  it('REJECTED fails the workflow with the agent reason as RemoteTaskRejected', async () => {
    const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: 'Please review my work' } });
    const cause = await failureOf(handle.result());
    expect(cause.type).toBe('RemoteTaskRejected');
    expect(cause.message).toMatch(/TASK_STATE_REJECTED: There is no diff in this message to review\./);
    expect(await handle.query(statusQuery)).toMatchObject({ state: 'TASK_STATE_REJECTED', waitingOn: 'none' });
  });

  it('FAILED after an answer fails the workflow as RemoteTaskFailed and the update reports it', async () => {
    const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
    await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');
    const reply = await answerTask(suite.client, handle.workflowId, { text: 'no such branch' });
    expect(reply.state).toBe('TASK_STATE_FAILED');
    const cause = await failureOf(handle.result());
    expect(cause.type).toBe('RemoteTaskFailed');
    expect(cause.message).toContain('Base branch "no such branch" does not exist.');
  });
});

describe('bad input', () => {
  it('names the offending field and starts nothing', async () => {
    await expect(suite.start({ agent: { name: 'x' }, message: { text: 'hi' } })).rejects.toThrow(/agent: give the agent a url or a card/);
    await expect(suite.start({ agent: { name: 'x', url: 'ftp://nope' }, message: {} } as never)).rejects.toThrow(/agent\.url.*message/s);
  });
});

itReplaysItsHistories(suite);
