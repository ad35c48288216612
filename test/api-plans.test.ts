// Plans over the API on the real dev server with real agents: the seed plan driven over HTTP with
// its event stream carrying each transition, a second server process (server/main.ts as a child)
// serving the same plan's status and events, Idempotency-Key, cancel, and the plan errors.
import { planIdForKey } from '../server/api/plans';
import { principalOf } from '../server/auth';
import type { RunningServer } from '../server/main';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { call, startApi, startChildApi, subscribe, TOKEN, type ChildApi, type SseEvent } from './support/api';
import { DIFF_TEXT, planDoc, planWorkflowIds } from './support/plans';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

interface Step {
  id: string;
  state: string;
  waitingOn: string;
  text?: string;
  turn: number;
  taskId?: string;
  workflowId?: string;
}
interface Status {
  planId: string;
  state: string;
  waitingOn: string;
  workflowStatus: string;
  steps: Step[];
}

let reviewer: AgentHandle;
let deployer: AgentHandle;
let api: RunningServer;
let second: ChildApi;
const suite = plannerSuite('api-plans');
beforeAll(async () => {
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
  api = await startApi(suite.client, suite.queue);
  second = await startChildApi(suite.queue);
}, 90_000);
afterAll(() => Promise.all([api?.close(), second?.stop(), reviewer?.close(), deployer?.close()]));

const agentUrls = () => ({ 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl });
const stepOf = (s: Status, id: string): Step => s.steps.find((x) => x.id === id)!;
const statuses = (events: SseEvent[]): Status[] => events.filter((e) => e.event === 'status').map((e) => e.data as Status);
/** The plan's path through its states, one entry per distinct (plan state, review, deploy) triple. */
const path = (events: SseEvent[]): string[] =>
  statuses(events)
    .map((s) => `${s.state}|review:${stepOf(s, 'review').state}/${stepOf(s, 'review').waitingOn}|deploy:${stepOf(s, 'deploy').state}/${stepOf(s, 'deploy').waitingOn}`)
    .filter((p, i, all) => i === 0 || all[i - 1] !== p);

it('runs the seed plan over the API; both servers stream each transition and serve the same status', async () => {
  const started = await call(api.url, 'POST', '/v1/plans', { body: { planFile: 'release.yaml', inputs: { build: '2026.12.03-7' }, agentUrls: agentUrls() } });
  expect(started.status).toBe(201);
  const { planId, uiUrl } = started.body as { planId: string; uiUrl: string };
  suite.track(planId);
  expect(planId).toMatch(/^plan-release-/);
  expect(uiUrl).toBe(`http://ui.test:8233/namespaces/default/workflows/${planId}`);
  expect(started.headers.get('location')).toBe(`/v1/plans/${planId}`);

  const here = await subscribe(api.url, `/v1/plans/${planId}/events`);
  const there = await subscribe(second.url, `/v1/plans/${planId}/events`);
  expect([here.status, there.status]).toEqual([200, 200]);

  // The question, seen through the events, the plan, the plan list and the inbox.
  const asking = (s: Status) => stepOf(s, 'review').waitingOn === 'human';
  await eventually(() => statuses(there.events).some(asking), 'the question in the second server\'s stream');
  const plan = await call(second.url, 'GET', `/v1/plans/${planId}`);
  expect(plan.body).toMatchObject({ planId, workflowStatus: 'RUNNING', state: 'running', waitingOn: 'human', inputs: { build: '2026.12.03-7' }, uiUrl });
  expect(stepOf(plan.body as Status, 'review')).toMatchObject({ state: 'running', text: BASE_BRANCH_QUESTION, turn: 1 });
  expect((await call(api.url, 'GET', `/v1/plans/${planId}`)).body).toMatchObject({ planId, waitingOn: 'human' });
  await eventually(async () => {
    const r = await call(api.url, 'GET', '/v1/plans?status=running&waitingOn=human&pageSize=100');
    return (r.body as { plans: Array<{ planId: string }> }).plans.some((p) => p.planId === planId);
  }, 'the plan listed as running and waiting on a human');
  const inbox = await eventually(async () => {
    const r = await call(api.url, 'GET', `/v1/inbox?planId=${planId}`);
    return (r.body as { entries: Array<{ stepId?: string; waitingOn: string }> }).entries.find((e) => e.stepId === 'review' && e.waitingOn === 'human');
  }, 'the step in the inbox');
  expect(inbox).toMatchObject({ workflowId: `${planId}.review`, planId, waitingOn: 'human', text: BASE_BRANCH_QUESTION });

  // A subscriber adds nothing to the plan's history: three more for two seconds while it waits.
  const historyLength = async () => (await suite.client.workflow.getHandle(planId).fetchHistory()).events?.length ?? 0;
  const before = await historyLength();
  const idle = await Promise.all([subscribe(api.url, `/v1/plans/${planId}/events`), subscribe(second.url, `/v1/plans/${planId}/events`), subscribe(second.url, `/v1/plans/${planId}/events`)]);
  await eventually(() => idle.every((s) => s.events.length >= 1), 'the idle subscribers\' first event');
  await new Promise((r) => setTimeout(r, 2000));
  idle.forEach((s) => s.close());
  expect(await historyLength()).toBe(before);

  // The deploy step has not started: answering it is a conflict. Then the review's answer, over the API.
  const early = await call(api.url, 'POST', `/v1/plans/${planId}/steps/deploy/answer`, { body: { text: 'main' } });
  expect(early.status).toBe(409);
  expect(early.body).toMatchObject({ error: { code: 'conflict', message: expect.stringContaining('not waiting on a question') } });
  const answered = await call(api.url, 'POST', `/v1/plans/${planId}/steps/review/answer`, { body: { text: 'main', turn: 1 } });
  expect(answered.status).toBe(200);
  expect(answered.body).toMatchObject({ planId, stepId: 'review', turn: 1, state: 'TASK_STATE_COMPLETED' });
  const stale = await call(api.url, 'POST', `/v1/plans/${planId}/steps/review/answer`, { body: { text: 'main' } });
  expect(stale.status).toBe(409);

  // Approved once both streams show the wait: a stream reads the plan's status when its history
  // moves, so a state that passes before a (loaded) server reads it is never sent.
  const approval = await eventually(() => statuses(here.events).find((s) => stepOf(s, 'deploy').waitingOn === 'operator'), 'the approval in the stream');
  await eventually(() => statuses(there.events).some((s) => stepOf(s, 'deploy').waitingOn === 'operator'), "the approval in the second server's stream");
  expect(stepOf(approval, 'deploy').text).toContain(`${deployer.baseUrl}/approve/`);
  await deployer.approve(stepOf(approval, 'deploy').taskId!);

  await Promise.all([here.ended, there.ended]);
  const expected = [
    'running|review:running/human|deploy:pending/none',
    'running|review:completed/none|deploy:running/operator',
    'completed|review:completed/none|deploy:completed/none',
  ];
  for (const sub of [here, there]) {
    const seen = path(sub.events);
    const trace = `${sub === here ? 'in-process' : 'child'} server's stream: ${JSON.stringify(seen)}; problems: ${JSON.stringify(sub.events.filter((e) => e.event === 'problem'))}`;
    // Each transition, in order (the stream may also show the short steps in between).
    expect({ trace, order: expected.map((e) => seen.indexOf(e)) }).toEqual({ trace, order: [...expected.map((e) => seen.indexOf(e))].sort((a, b) => a - b) });
    expect({ trace, all: expected.every((e) => seen.includes(e)) }).toEqual({ trace, all: true });
    const last = sub.events[sub.events.length - 1]!;
    expect(last).toMatchObject({ event: 'end', data: { planId, workflowStatus: 'COMPLETED', state: 'completed' } });
    // Only changes are sent: no two status events in a row are the same.
    const sts = statuses(sub.events).map((s) => JSON.stringify(s));
    expect(sts.every((s, i) => i === 0 || sts[i - 1] !== s)).toBe(true);
  }
  const done = await call(second.url, 'GET', `/v1/plans/${planId}`);
  expect(done.body).toMatchObject({ workflowStatus: 'COMPLETED', state: 'completed', waitingOn: 'none' });
  const artifact = await call(second.url, 'GET', `/v1/artifacts/${planId}.deploy/deploy-result.json`);
  expect(artifact.body).toMatchObject({ status: 'deployed', version: '2026.12.03-7' });
  // A late subscriber to a closed plan gets its last state and the end at once.
  const late = await subscribe(second.url, `/v1/plans/${planId}/events`);
  await late.ended;
  expect(late.events.map((e) => e.event)).toEqual(['status', 'end']);
  suite.track(...(await planWorkflowIds(suite.client, planId)).slice(1));
});

it('Idempotency-Key: retried and concurrent POSTs start one plan; cancel over the API', async () => {
  const doc = planDoc('asks', { 'code-reviewer': reviewer.baseUrl }, [{ id: 'review', agent: 'code-reviewer', text: DIFF_TEXT }]);
  const key = `order-${Date.now()}`;
  const post = () => call(api.url, 'POST', '/v1/plans', { body: doc, headers: { 'Idempotency-Key': key } });
  const [a, b] = await Promise.all([post(), post()]);
  const c = await post();
  const planId = planIdForKey(principalOf(TOKEN), key);
  suite.track(planId);
  expect([a, b, c].map((r) => (r.body as { planId: string }).planId)).toEqual([planId, planId, planId]);
  expect([a.status, b.status].sort()).toEqual([200, 201]);
  expect(c.status).toBe(200);
  expect(c.headers.get('idempotent-replayed')).toBe('true');
  const other = await call(second.url, 'POST', '/v1/plans', { body: doc, headers: { 'Idempotency-Key': `${key}-other` } });
  expect(other.status).toBe(201);
  suite.track((other.body as { planId: string }).planId);
  await eventually(async () => (await suite.client.workflow.count(`WorkflowId = "${planId}"`)).count === 1, 'one plan for the key');

  await eventually(async () => {
    const r = await call(api.url, 'GET', `/v1/plans/${planId}`);
    return (r.body as Status).waitingOn === 'human';
  }, 'the plan waiting on its question');
  const cancelled = await call(api.url, 'POST', `/v1/plans/${planId}/cancel`);
  expect(cancelled.status).toBe(202);
  expect(cancelled.body).toMatchObject({ planId, cancelRequested: true });
  const closed = await eventually(async () => {
    const r = await call(api.url, 'GET', `/v1/plans/${planId}`);
    return (r.body as Status).workflowStatus !== 'RUNNING' && r.body;
  }, 'the plan closed');
  expect(closed).toMatchObject({ workflowStatus: 'CANCELLED' });
  expect((await call(api.url, 'POST', `/v1/plans/${planId}/cancel`)).status).toBe(409);
  // A retried POST after the plan closed still names that plan, and starts nothing.
  const after = await post();
  expect(after).toMatchObject({ status: 200, body: { planId } });
  expect((await suite.client.workflow.count(`WorkflowId = "${planId}"`)).count).toBe(1);
  await call(api.url, 'POST', `/v1/plans/${(other.body as { planId: string }).planId}/cancel`);
  suite.track(`${planId}.review`, `${(other.body as { planId: string }).planId}.review`);
});

it('400 names the plan problem and its path; 404 for an unknown plan or step; nothing starts', async () => {
  const before = (await suite.client.workflow.count(`TaskQueue = "${suite.queue}"`)).count;
  const badDoc = await call(api.url, 'POST', '/v1/plans', { body: { plan: planDoc('bad', { 'code-reviewer': reviewer.baseUrl }, [{ id: 'review', agent: 'nobody', text: 'x' }]) } });
  expect(badDoc.status).toBe(400);
  expect(badDoc.body).toMatchObject({ error: { code: 'invalid_request', details: [expect.objectContaining({ path: expect.stringMatching(/^body\.plan\.steps\[0\]\.agent/) })] } });
  expect((badDoc.body as { error: { message: string } }).error.message).toContain('nobody');
  const wrongType = await call(api.url, 'POST', '/v1/plans', { body: { planFile: 'release.yaml', inputs: { build: { nested: true } } } });
  expect(wrongType.status).toBe(400);
  expect((wrongType.body as { error: { details: Array<{ path: string }> } }).error.details[0]!.path).toBe('body.inputs.build');
  for (const planFile of ['../../package.json', '/etc/hostname.yaml', '../plans/release.yaml', 'missing.yaml']) {
    const r = await call(api.url, 'POST', '/v1/plans', { body: { planFile } });
    expect({ planFile, status: r.status }).toEqual({ planFile, status: 400 });
    expect(r.body).toMatchObject({ error: { details: [{ path: 'body.planFile' }] } });
  }
  const unknownInput = await call(api.url, 'POST', '/v1/plans', { body: { planFile: 'release.yaml', inputs: { colour: 'blue' }, agentUrls: agentUrls() } });
  expect(unknownInput.status).toBe(400);
  expect(unknownInput.text).toContain('colour');
  expect((await call(api.url, 'GET', '/v1/plans/plan-nope')).status).toBe(404);
  expect((await call(api.url, 'GET', '/v1/plans/plan-nope/events')).status).toBe(404);
  expect((await call(api.url, 'POST', '/v1/plans/plan-nope/cancel')).status).toBe(404);
  expect((await call(api.url, 'POST', '/v1/plans/plan-nope/steps/review/answer', { body: { text: 'x' } })).status).toBe(404);
  expect((await call(api.url, 'GET', '/v1/plans?status=sleeping')).status).toBe(400);
  expect((await suite.client.workflow.count(`TaskQueue = "${suite.queue}"`)).count).toBe(before);
});

itReplaysItsHistories(suite);
