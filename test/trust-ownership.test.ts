// Callers see only their own (issue 19, item 3; the Idempotency-Key of item 5), against a real
// `planner serve` on the run's dev server with real agents: two caller tokens and one operator
// token. Caller B gets exactly the not-found answer for everything of caller A's (plans, their
// steps' tasks, inbox entries, live events, artifacts, answers, cancels, schedules); the operator
// sees and answers everything, including plans started outside the API (which have no owner);
// the A2A face and /v1 agree on who a token is; an Idempotency-Key is per caller and bound to
// the body.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { startPlan } from '../client/plan';
import type { RunningServer } from '../server/main';
import { principalOf } from '../server/auth';
import { PlannerOwner } from '../workflows/search-attributes';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { call, startApi, subscribe, type Call } from './support/api';
import { planWorkflowIds } from './support/plans';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

const A = 'caller-a-token-0123456789abcdef';
const B = 'caller-b-token-0123456789abcdef';
const OPERATOR = 'operator-token-0123456789abcdef';
const RELEASE = join(__dirname, '..', 'demo', 'plans', 'release.yaml');

const suite = plannerSuite('trust-ownership');
let reviewer: AgentHandle;
let deployer: AgentHandle;
let api: RunningServer;
beforeAll(async () => {
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
  process.env.PLANNER_A2A_AGENT_URLS = JSON.stringify({ 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl });
  api = await startApi(suite.client, suite.queue, { PLANNER_API_TOKEN: `${A},${B}`, PLANNER_API_OPERATOR_TOKEN: OPERATOR });
}, 90_000);
afterAll(async () => {
  delete process.env.PLANNER_A2A_AGENT_URLS;
  await Promise.all([api?.close(), reviewer?.close(), deployer?.close()]);
});

const agentUrls = () => ({ 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl });
const as = (token: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Call> =>
  call(api.url, method, path, { token, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
const release = (build: string) => ({ planFile: 'release.yaml', inputs: { build }, agentUrls: agentUrls() });

interface Entry {
  workflowId: string;
  planId?: string;
  stepId?: string;
  turn?: number;
}
const inboxOf = async (token: string, query = ''): Promise<Entry[]> => ((await as(token, 'GET', `/v1/inbox?pageSize=500${query}`)).body as { entries: Entry[] }).entries;
const plansOf = async (token: string): Promise<string[]> =>
  ((await as(token, 'GET', '/v1/plans?pageSize=500')).body as { plans: Array<{ planId: string }> }).plans.map((p) => p.planId);

/** The not-found answer for a plan (or task) id: 404, code not_found, the id named. */
const notFoundPlan = (id: string) => ({ error: { code: 'not_found', message: `no plan with id ${id}` } });
const notFoundTask = (id: string) => ({ error: { code: 'not_found', message: `no delegated task with id ${id}` } });

/** A's release plan over /v1, waiting on the reviewer's question. */
async function startedByA(build: string): Promise<{ planId: string; review: string }> {
  const r = await as(A, 'POST', '/v1/plans', release(build));
  expect(r.status).toBe(201);
  const { planId } = r.body as { planId: string };
  suite.track(planId, `${planId}.review`, `${planId}.deploy`);
  const review = `${planId}.review`;
  await eventually(async () => (await inboxOf(A, `&planId=${planId}`)).some((e) => e.workflowId === review), `A's question of ${planId} in A's inbox`);
  return { planId, review };
}

it("B gets the not-found answer for A's plan and its step's task on every route; A and the operator see them; the operator answers", async () => {
  const { planId, review } = await startedByA('2026.12.03-a');

  // B: the plan, its list entry, its inbox entry, its events, its step's task, answers and a cancel.
  const read = await as(B, 'GET', `/v1/plans/${planId}`);
  expect([read.status, read.body]).toEqual([404, notFoundPlan(planId)]);
  expect(await plansOf(B)).not.toContain(planId);
  expect((await inboxOf(B)).map((e) => e.workflowId)).not.toContain(review);
  expect(await inboxOf(B, `&planId=${planId}`)).toEqual([]);
  const events = await subscribe(api.url, `/v1/plans/${planId}/events`, B);
  expect(events.status).toBe(404);
  events.close();
  const task = await as(B, 'GET', `/v1/tasks/${review}`);
  expect([task.status, task.body]).toEqual([404, notFoundTask(review)]);
  const answerStep = await as(B, 'POST', `/v1/plans/${planId}/steps/review/answer`, { text: 'evil' });
  expect([answerStep.status, answerStep.body]).toEqual([404, notFoundPlan(planId)]);
  const answerTask = await as(B, 'POST', `/v1/tasks/${review}/answer`, { text: 'evil' });
  expect([answerTask.status, answerTask.body]).toEqual([404, notFoundTask(review)]);
  const cancel = await as(B, 'POST', `/v1/plans/${planId}/cancel`);
  expect([cancel.status, cancel.body]).toEqual([404, notFoundPlan(planId)]);
  // An unknown id gets the same answer: nothing tells B that A's id exists.
  const unknown = `plan-release-${randomUUID().slice(0, 8)}`;
  expect((await as(B, 'GET', `/v1/plans/${unknown}`)).body).toEqual(notFoundPlan(unknown));
  expect(reviewer.log.userMessages.some((m) => JSON.stringify(m).includes('evil'))).toBe(false);

  // The owner is recorded where every replica reads it: on the plan and on its step's task.
  const plan = await suite.client.workflow.getHandle(planId).describe();
  expect(plan.typedSearchAttributes.get(PlannerOwner)).toBe(principalOf(A));
  expect((await suite.client.workflow.getHandle(review).describe()).typedSearchAttributes.get(PlannerOwner)).toBe(principalOf(A));

  // A sees its own: the plan, the list, the inbox, the events, the task.
  expect((await as(A, 'GET', `/v1/plans/${planId}`)).body).toMatchObject({ planId, waitingOn: 'human' });
  await eventually(async () => (await plansOf(A)).includes(planId), "A's plan in A's list");
  const own = await subscribe(api.url, `/v1/plans/${planId}/events`, A);
  expect(own.status).toBe(200);
  await eventually(() => own.events.some((e) => e.event === 'status'), "the first status on A's stream");
  expect((await as(A, 'GET', `/v1/tasks/${review}`)).status).toBe(200);

  // The operator sees everything and answers A's question.
  expect((await as(OPERATOR, 'GET', `/v1/plans/${planId}`)).status).toBe(200);
  await eventually(async () => (await plansOf(OPERATOR)).includes(planId), "A's plan in the operator's list");
  expect((await inboxOf(OPERATOR)).map((e) => e.workflowId)).toContain(review);
  const answered = await as(OPERATOR, 'POST', `/v1/plans/${planId}/steps/review/answer`, { text: 'main' });
  expect(answered.status).toBe(200);

  // The review's artifact: A's and the operator's to read, not B's.
  await eventually(async () => (await as(A, 'GET', `/v1/tasks/${review}`)).body && ((await as(A, 'GET', `/v1/tasks/${review}`)).body as { workflowStatus: string }).workflowStatus === 'COMPLETED', 'the review completed');
  expect((await as(A, 'GET', `/v1/artifacts/${review}/review.json`)).status).toBe(200);
  expect((await as(OPERATOR, 'GET', `/v1/artifacts/${review}/review.json`)).status).toBe(200);
  const artifact = await as(B, 'GET', `/v1/artifacts/${review}/review.json`);
  expect([artifact.status, artifact.body]).toEqual([404, notFoundTask(review)]);

  // The deploy step's approval is in A's inbox and the operator's, not B's; A cancels its own plan.
  const deploy = `${planId}.deploy`;
  await eventually(async () => (await inboxOf(A, `&planId=${planId}`)).some((e) => e.workflowId === deploy), "the approval in A's inbox");
  expect((await inboxOf(B)).map((e) => e.workflowId)).not.toContain(deploy);
  expect((await as(A, 'POST', `/v1/plans/${planId}/cancel`)).status).toBe(202);
  await eventually(() => own.events.some((e) => e.event === 'end'), "the end on A's stream");
  own.close();
}, 120_000);

it('a plan started outside the API (the CLI) has no owner: only the operator sees and cancels it', async () => {
  const planId = `plan-release-cli-${randomUUID().slice(0, 8)}`;
  await startPlan(suite.client, { planFile: RELEASE }, { planId, agentUrls: agentUrls() }, { taskQueue: suite.queue });
  suite.track(planId, `${planId}.review`);
  await eventually(async () => (await inboxOf(OPERATOR, `&planId=${planId}`)).length === 1, "the CLI plan's question in the operator's inbox");
  for (const caller of [A, B]) {
    expect((await as(caller, 'GET', `/v1/plans/${planId}`)).body).toEqual(notFoundPlan(planId));
    expect((await as(caller, 'GET', `/v1/tasks/${planId}.review`)).body).toEqual(notFoundTask(`${planId}.review`));
    expect(await inboxOf(caller, `&planId=${planId}`)).toEqual([]);
    expect((await as(caller, 'POST', `/v1/plans/${planId}/cancel`)).status).toBe(404);
  }
  expect((await as(OPERATOR, 'GET', `/v1/tasks/${planId}.review`)).status).toBe(200);
  expect((await as(OPERATOR, 'POST', `/v1/plans/${planId}/cancel`)).status).toBe(202);
});

it("B cannot read, list, trigger or delete A's schedule; the plans it starts are A's", async () => {
  const scheduleId = `trust-${Date.now()}`;
  const created = await as(A, 'POST', '/v1/schedules', { scheduleId, every: '1h', ...release('2026.12.03-sched') });
  expect(created.status).toBe(201);
  try {
    const missing = { error: { code: 'not_found', message: `no schedule with id ${scheduleId}` } };
    for (const [method, path] of [
      ['GET', `/v1/schedules/${scheduleId}`],
      ['POST', `/v1/schedules/${scheduleId}/trigger`],
      ['DELETE', `/v1/schedules/${scheduleId}`],
    ] as const) {
      const r = await as(B, method, path);
      expect([method, r.status, r.body]).toEqual([method, 404, missing]);
    }
    const ids = async (token: string) => ((await as(token, 'GET', '/v1/schedules')).body as { schedules: Array<{ scheduleId: string }> }).schedules.map((s) => s.scheduleId);
    expect(await ids(B)).not.toContain(scheduleId);
    expect(await ids(A)).toContain(scheduleId);
    expect(await ids(OPERATOR)).toContain(scheduleId);
    expect((await as(OPERATOR, 'GET', `/v1/schedules/${scheduleId}`)).status).toBe(200);

    // A starts one now; the plan it starts is A's.
    expect((await as(A, 'POST', `/v1/schedules/${scheduleId}/trigger`)).status).toBe(202);
    const planId = await eventually(async () => ((await as(A, 'GET', `/v1/schedules/${scheduleId}`)).body as { recentPlans: Array<{ planId: string }> }).recentPlans[0]?.planId, 'the triggered plan');
    suite.track(planId, `${planId}.review`);
    await eventually(async () => (await inboxOf(A, `&planId=${planId}`)).length === 1, "the scheduled plan's question in A's inbox");
    expect((await as(B, 'GET', `/v1/plans/${planId}`)).body).toEqual(notFoundPlan(planId));
    expect((await as(A, 'POST', `/v1/plans/${planId}/cancel`)).status).toBe(202);
  } finally {
    expect((await as(A, 'DELETE', `/v1/schedules/${scheduleId}`)).status).toBe(204);
  }
});

it('the A2A face and /v1 agree on the caller: A\'s A2A task is A\'s plan on /v1, not B\'s', async () => {
  const rpc = (token: string, method: string, params: unknown) => call(api.url, 'POST', '/a2a/jsonrpc', { token, body: { jsonrpc: '2.0', id: 1, method, params }, headers: { 'a2a-version': '1.0' } });
  const sent = await rpc(A, 'SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Release payments-api' }], metadata: { skill: 'release' } },
    configuration: { returnImmediately: true },
  });
  const taskId = (sent.body as { result: { task: { id: string } } }).result.task.id;
  suite.track(taskId, `${taskId}.review`);
  expect(taskId.startsWith(`a2a-${principalOf(A)}-`)).toBe(true);
  await eventually(async () => (await inboxOf(A, `&planId=${taskId}`)).length === 1, "the A2A task's question in A's /v1 inbox");
  expect((await as(B, 'GET', `/v1/plans/${taskId}`)).body).toEqual(notFoundPlan(taskId));
  expect(await inboxOf(B, `&planId=${taskId}`)).toEqual([]);
  expect((await as(A, 'GET', `/v1/plans/${taskId}`)).status).toBe(200);
  expect((await suite.client.workflow.getHandle(taskId).describe()).typedSearchAttributes.get(PlannerOwner)).toBe(principalOf(A));
  expect((sent.body as { error?: unknown }).error).toBeUndefined();
  const theirs = await rpc(B, 'GetTask', { id: taskId });
  expect((theirs.body as { error?: { code: number } }).error?.code).toBe(-32001); // TaskNotFoundError
  // A plan A starts on /v1 is not an A2A task of anyone's, and B's face does not see it either.
  expect((await as(A, 'POST', `/v1/plans/${taskId}/cancel`)).status).toBe(202);
});

describe('Idempotency-Key: per caller, bound to the body', () => {
  const key = `release-${randomUUID()}`;
  const started = async (token: string, body: unknown): Promise<Call> => as(token, 'POST', '/v1/plans', body, { 'idempotency-key': key });

  it('the same caller, key and body return the same plan; another body is a 422 naming the key; another caller gets a plan of its own', async () => {
    const first = await started(A, release('2026.12.03-k'));
    expect(first.status).toBe(201);
    const planId = (first.body as { planId: string }).planId;
    suite.track(planId, `${planId}.review`);

    // The same body, its keys in another order: the same plan, said to be replayed.
    const { planFile, inputs, agentUrls: urls } = release('2026.12.03-k');
    const again = await started(A, { agentUrls: urls, inputs, planFile });
    expect([again.status, again.headers.get('idempotent-replayed'), (again.body as { planId: string }).planId]).toEqual([200, 'true', planId]);

    const other = await started(A, release('2026.12.03-other'));
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error: { code: 'idempotency_key_reused', message: expect.stringContaining(JSON.stringify(key)) } });

    // B's same key: a plan of B's own, which runs; A's stays A's.
    const theirs = await started(B, release('2026.12.03-k'));
    expect(theirs.status).toBe(201);
    const theirId = (theirs.body as { planId: string }).planId;
    suite.track(theirId, `${theirId}.review`);
    expect(theirId).not.toBe(planId);
    await eventually(async () => (await inboxOf(B, `&planId=${theirId}`)).length === 1, "B's own plan waiting on its question");
    expect((await as(B, 'GET', `/v1/plans/${planId}`)).status).toBe(404);

    for (const [token, id] of [[A, planId], [B, theirId]] as const) expect((await as(token, 'POST', `/v1/plans/${id}/cancel`)).status).toBe(202);
    await eventually(async () => {
      const ids = [...(await planWorkflowIds(suite.client, planId)), ...(await planWorkflowIds(suite.client, theirId))];
      return ids.length > 0;
    }, 'the plans readable for the replay check');
  });
});

itReplaysItsHistories(suite);
