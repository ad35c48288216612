// INPUT_REQUIRED: the workflow publishes the question, waits for an answer (update or signal), and
// sends it on the same task and context.
import type { Client } from '@temporalio/client';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { answerTask } from '../client/delegated-task';
import { answerSignal, statusQuery } from '../workflows/delegated-task-messages';
import { BASE_BRANCH_QUESTION, MIGRATIONS_QUESTION, startCodeReviewer, type AgentHandle } from './agents';
import { connectClient, startWorkers, uniqueQueue, type RunningWorkers } from './harness/planner';
import { startAlertSink, type AlertSink } from './support/alert-sink';
import { DIFF, replayAll, start, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

let client: Client;
let workers: RunningWorkers;
let sink: AlertSink;
const queue = uniqueQueue('input');
const started: string[] = [];

beforeAll(async () => {
  client = await connectClient();
  sink = await startAlertSink();
  workers = await startWorkers(queue, { PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: sink.url });
});

afterAll(async () => {
  await workers?.stop();
  await sink?.close();
  await client?.connection.close();
});

describe('code reviewer (INPUT_REQUIRED)', () => {
  let reviewer: AgentHandle;
  beforeAll(async () => {
    reviewer = await startCodeReviewer();
  });
  afterAll(() => reviewer.close());

  it('waits for the answer, then completes with review.json on the same task and context', async () => {
    const handle = await start(client, queue, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, planId: 'plan-review-1' });
    started.push(handle.workflowId);
    const waiting = await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');
    expect(waiting.text).toBe(BASE_BRANCH_QUESTION);
    expect(waiting.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(waiting.turn).toBe(1);

    // The inbox is a visibility query.
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const wf of client.workflow.list({ query: `PlannerWaitingOn = "human" AND A2aAgent = "code-reviewer" AND PlanId = "plan-review-1"` })) ids.push(wf.workflowId);
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
    const alert = await eventually(() => sink.forWorkflow(handle.workflowId)[0], 'the input alert');
    expect(alert.body).toMatchObject({ kind: 'input', agent: 'code-reviewer', taskId: waiting.taskId, text: BASE_BRANCH_QUESTION, planId: 'plan-review-1' });
    expect(alert.body.uiUrl).toContain(`/workflows/${handle.workflowId}`);
    expect(alert.idempotencyKey).toBeDefined();

    const reply = await answerTask(client, handle.workflowId, { text: 'main', turn: 1 });
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
    const handle = await start(client, queue, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
    started.push(handle.workflowId);
    await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');
    await expect(answerTask(client, handle.workflowId, { text: '   ' })).rejects.toThrow(WorkflowUpdateFailedError);
    await expect(answerTask(client, handle.workflowId, { text: 'main', turn: 7 })).rejects.toThrow(WorkflowUpdateFailedError);
    await handle.signal(answerSignal, { text: 'develop' });
    const result = await handle.result();
    expect(result.artifacts[0]?.parts[0]).toMatchObject({ data: { baseBranch: 'develop' } });
    await expect(answerTask(client, handle.workflowId, { text: 'late' })).rejects.toThrow();
  });
});

describe('an agent that asks twice', () => {
  let reviewer: AgentHandle;
  beforeAll(async () => {
    reviewer = await startCodeReviewer({ questions: 2, preferredBinding: 'HTTP+JSON' });
  });
  afterAll(() => reviewer.close());

  it('sends both answers on the same task with their own messageIds and rejects a stale answer', async () => {
    const handle = await start(client, queue, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
    started.push(handle.workflowId);
    const q1 = await waitForStatus(handle, (s) => s.turn === 1 && s.waitingOn === 'human', 'question 1');
    expect(q1.text).toBe(BASE_BRANCH_QUESTION);
    const r1 = await answerTask(client, handle.workflowId, { text: 'main', turn: 1 });
    expect(r1).toMatchObject({ turn: 1, state: 'TASK_STATE_INPUT_REQUIRED', text: MIGRATIONS_QUESTION });
    const q2 = await waitForStatus(handle, (s) => s.turn === 2, 'question 2');
    expect(q2.text).toBe(MIGRATIONS_QUESTION);

    const stale = answerTask(client, handle.workflowId, { text: 'main again', turn: 1 });
    await expect(stale).rejects.toThrow(WorkflowUpdateFailedError);
    await expect(stale).rejects.toMatchObject({ cause: { message: expect.stringContaining('current question is turn 2') } });

    const r2 = await answerTask(client, handle.workflowId, { text: 'yes', turn: 2 });
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
    const handle = await start(client, queue, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: 'Please review my work' } });
    started.push(handle.workflowId);
    const cause = await failureOf(handle.result());
    expect(cause.type).toBe('RemoteTaskRejected');
    expect(cause.message).toMatch(/TASK_STATE_REJECTED: There is no diff in this message to review\./);
    expect(await handle.query(statusQuery)).toMatchObject({ state: 'TASK_STATE_REJECTED', waitingOn: 'none' });
  });

  it('FAILED after an answer fails the workflow as RemoteTaskFailed and the update reports it', async () => {
    const handle = await start(client, queue, { agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
    started.push(handle.workflowId);
    await waitForStatus(handle, (s) => s.waitingOn === 'human', 'the question');
    const reply = await answerTask(client, handle.workflowId, { text: 'no such branch' });
    expect(reply.state).toBe('TASK_STATE_FAILED');
    const cause = await failureOf(handle.result());
    expect(cause.type).toBe('RemoteTaskFailed');
    expect(cause.message).toContain('Base branch "no such branch" does not exist.');
  });
});

describe('bad input', () => {
  it('names the offending field and starts nothing', async () => {
    await expect(start(client, queue, { agent: { name: 'x' }, message: { text: 'hi' } })).rejects.toThrow(/agent: give the agent a url or a card/);
    await expect(start(client, queue, { agent: { name: 'x', url: 'ftp://nope' }, message: {} } as never)).rejects.toThrow(/agent\.url.*message/s);
  });
});

describe('replay', () => {
  it('replays every history of this suite without nondeterminism', async () => {
    const { replayed, errors } = await replayAll(client, started);
    expect(errors).toEqual([]);
    expect(replayed).toBe(started.length);
  });
});
