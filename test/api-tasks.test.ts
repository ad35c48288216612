// The API over real HTTP on the run's dev server, with real agents: the single-task flow (a question
// answered through the API, an approval seen in the inbox), answers that conflict, artifacts, paging.
import type { RunningServer } from '../server/main';
import { BASE_BRANCH_QUESTION, MIGRATIONS_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { call as callAs, OPERATOR_TOKEN, startApi } from './support/api';
import { DEPLOY, DIFF, waitForStatus } from './support/delegated';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

interface Entry {
  workflowId: string;
  waitingOn: string;
  text?: string;
  turn?: number;
  taskId?: string;
  uiUrl: string;
}
interface Page {
  entries: Entry[];
  nextPageToken?: string;
}

let reviewer: AgentHandle;
let twice: AgentHandle;
let deployer: AgentHandle;
let api: RunningServer;
const suite = plannerSuite('api-tasks');
beforeAll(async () => {
  [reviewer, twice, deployer] = await Promise.all([startCodeReviewer(), startCodeReviewer({ questions: 2 }), startDeployer()]);
  api = await startApi(suite.client, suite.queue);
});
afterAll(() => Promise.all([api?.close(), reviewer?.close(), twice?.close(), deployer?.close()]));

/** The suite starts its tasks through its client, as the CLI does: they have no owner, so the operator reads and answers them. */
const call: typeof callAs = (base, method, path, opts = {}) => callAs(base, method, path, { token: OPERATOR_TOKEN, ...opts });

const inbox = async (query = ''): Promise<Page> => {
  const r = await call(api.url, 'GET', `/v1/inbox${query}`);
  expect(r.status).toBe(200);
  return r.body as Page;
};
/**
 * The inbox spans the namespace: in a full run it also holds other suites' waits (inbox-scale's 200,
 * older than these), so a first page may hold none of this file's. Every page is read.
 */
const everyWait = async (): Promise<Page> => {
  const entries: Entry[] = [];
  let token: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await inbox(`?pageSize=500${token ? `&pageToken=${token}` : ''}`);
    entries.push(...page.entries);
    token = page.nextPageToken;
    if (!token) return { entries };
  }
  throw new Error('the inbox has more than 20 pages of 500');
};
const INBOX_MS = 90_000;
const entryOf = (page: Page, workflowId: string): Entry | undefined => page.entries.find((e) => e.workflowId === workflowId);

it('a question answered over the API, then an approval seen in the inbox, to completion', async () => {
  const review = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF } });
  const deploy = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });

  // From its start the task is listed as waiting on the agent; then as the question it asks.
  const asked = await eventually(async () => {
    const entry = entryOf(await everyWait(), review.workflowId);
    return entry?.waitingOn === 'human' && entry;
  }, 'the question in the inbox', INBOX_MS);
  expect(asked).toMatchObject({ waitingOn: 'human', text: BASE_BRANCH_QUESTION, turn: 1 });
  expect(asked.uiUrl).toBe(`http://ui.test:8233/namespaces/default/workflows/${encodeURIComponent(review.workflowId)}`);

  const task = await call(api.url, 'GET', `/v1/tasks/${review.workflowId}`);
  expect(task.status).toBe(200);
  expect(task.body).toMatchObject({ workflowId: review.workflowId, workflowStatus: 'RUNNING', state: 'TASK_STATE_INPUT_REQUIRED', waitingOn: 'human', turn: 1, uiUrl: asked.uiUrl });

  const answered = await call(api.url, 'POST', `/v1/tasks/${review.workflowId}/answer`, { body: { text: 'main', turn: 1 } });
  expect(answered.status).toBe(200);
  expect(answered.body).toMatchObject({ workflowId: review.workflowId, turn: 1, state: 'TASK_STATE_COMPLETED', uiUrl: asked.uiUrl });
  expect((await review.result()).state).toBe('TASK_STATE_COMPLETED');
  // The agent got the answer on its own task, once.
  const sent = reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${review.workflowId}/`));
  expect(sent.map((m) => m.text)).toEqual([DIFF, 'main']);

  // The question has left the inbox; the deploy's approval is there, in the agent's words.
  const approval = await eventually(async () => {
    const page = await everyWait();
    const waiting = entryOf(page, deploy.workflowId);
    // Before its approval the deploy shows as waiting on the agent (its work).
    return !entryOf(page, review.workflowId) && waiting?.waitingOn === 'operator' && waiting;
  }, 'the approval in the inbox, the question gone', INBOX_MS);
  expect(approval).toMatchObject({ waitingOn: 'operator' });
  expect(approval.text).toContain(`${deployer.baseUrl}/approve/`);

  await deployer.approve(approval.taskId!);
  expect((await deploy.result()).state).toBe('TASK_STATE_COMPLETED');
  const done = await call(api.url, 'GET', `/v1/tasks/${deploy.workflowId}`);
  expect(done.body).toMatchObject({ workflowStatus: 'COMPLETED', artifacts: [expect.objectContaining({ name: 'deploy-result.json' })] });
  await eventually(async () => !entryOf(await everyWait(), deploy.workflowId), 'the approval gone from the inbox', INBOX_MS);

  // The review's artifact, as bytes with the part's content type.
  const artifact = await call(api.url, 'GET', `/v1/artifacts/${review.workflowId}/review.json`);
  expect(artifact.status).toBe(200);
  expect(artifact.headers.get('content-type')).toMatch(/^application\/json/);
  expect(artifact.body).toMatchObject({ baseBranch: 'main', verdict: 'approve' });
  const missing = await call(api.url, 'GET', `/v1/artifacts/${review.workflowId}/nope.txt`);
  expect(missing.status).toBe(404);
  expect(missing.body).toMatchObject({ error: { code: 'not_found', message: expect.stringContaining('"review.json"') } });
}, 240_000);

it('409 for an answer to a task that is not waiting on a question, or to a stale turn; nothing is sent', async () => {
  const deploy = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY } });
  const auth = await waitForStatus(deploy, (s) => s.waitingOn === 'operator', 'AUTH_REQUIRED');
  const notAsking = await call(api.url, 'POST', `/v1/tasks/${deploy.workflowId}/answer`, { body: { text: 'yes' } });
  expect(notAsking.status).toBe(409);
  expect(notAsking.body).toMatchObject({ error: { code: 'conflict', message: expect.stringContaining('not waiting for input (state TASK_STATE_AUTH_REQUIRED)') } });
  // An artifact of a running task: a conflict too, naming why.
  const early = await call(api.url, 'GET', `/v1/artifacts/${deploy.workflowId}/deploy-result.json`);
  expect(early.status).toBe(409);
  expect(early.text).toContain('still running');
  await deployer.approve(auth.taskId!);
  await deploy.result();
  const closed = await call(api.url, 'POST', `/v1/tasks/${deploy.workflowId}/answer`, { body: { text: 'yes' } });
  expect(closed.status).toBe(409);
  expect(closed.body).toMatchObject({ error: { code: 'conflict', message: expect.stringContaining('is COMPLETED') } });
  expect(deployer.log.userMessages.filter((m) => m.messageId.startsWith(`${deploy.workflowId}/`))).toHaveLength(1);

  const asks = await suite.start({ agent: { name: 'code-reviewer', url: twice.baseUrl }, message: { text: DIFF } });
  await waitForStatus(asks, (s) => s.waitingOn === 'human' && s.turn === 1, 'question 1');
  const first = await call(api.url, 'POST', `/v1/tasks/${asks.workflowId}/answer`, { body: { text: 'main', turn: 1 } });
  expect(first.body).toMatchObject({ turn: 1, state: 'TASK_STATE_INPUT_REQUIRED', text: MIGRATIONS_QUESTION });
  const stale = await call(api.url, 'POST', `/v1/tasks/${asks.workflowId}/answer`, { body: { text: 'main again', turn: 1 } });
  expect(stale.status).toBe(409);
  expect(stale.body).toMatchObject({ error: { code: 'conflict', message: expect.stringContaining('names turn 1, but the current question is turn 2') } });
  expect(twice.log.userMessages.filter((m) => m.messageId.startsWith(`${asks.workflowId}/`))).toHaveLength(2);
  const second = await call(api.url, 'POST', `/v1/tasks/${asks.workflowId}/answer`, { body: { data: { migrations: 'yes' }, turn: 2 } });
  expect(second.body).toMatchObject({ turn: 2, state: 'TASK_STATE_COMPLETED' });
});

it('pages the inbox oldest first with a cursor, and 404s an unknown task', async () => {
  // Under a plan id of this test's: the filter keeps other suites' waits off these pages.
  const planId = `plan-api-tasks-paging-${Date.now()}`;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const h = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, planId });
    await waitForStatus(h, (s) => s.waitingOn === 'human', `question ${i}`);
    ids.push(h.workflowId);
  }
  await eventually(async () => {
    const page = await everyWait();
    return ids.every((id) => entryOf(page, id)?.waitingOn === 'human');
  }, 'all three in the inbox', INBOX_MS);
  const seen: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await inbox(`?planId=${planId}&pageSize=1${token ? `&pageToken=${token}` : ''}`);
    expect(page.entries.length).toBeLessThanOrEqual(1);
    seen.push(...page.entries.map((e) => e.workflowId));
    token = page.nextPageToken;
    pages++;
  } while (token && pages < 50);
  // Mine appear once each, in the order they started asking, and nothing else.
  expect(seen).toEqual(ids);
  expect(new Set(seen).size).toBe(seen.length);
  for (const id of ids) await call(api.url, 'POST', `/v1/tasks/${id}/answer`, { body: { text: 'main' } });

  const unknown = await call(api.url, 'GET', '/v1/tasks/no-such-task');
  expect(unknown.status).toBe(404);
  expect(unknown.body).toMatchObject({ error: { code: 'not_found', message: expect.stringContaining('no-such-task') } });
  const answerUnknown = await call(api.url, 'POST', '/v1/tasks/no-such-task/answer', { body: { text: 'x' } });
  expect(answerUnknown.status).toBe(404);
  const badToken = await call(api.url, 'GET', '/v1/inbox?pageToken=garbage');
  expect(badToken.status).toBe(400);
  expect(badToken.body).toMatchObject({ error: { details: [{ path: 'query.pageToken' }] } });
}, 240_000);

it("an operator's answer to a plan's id (no task) is the 404 naming it, and the plan takes nothing", async () => {
  // An operator's answer goes to the workflow before the task is read (server/api/tasks.ts): the
  // read comes only when it fails, and must still tell a plan from a task.
  const started = await call(api.url, 'POST', '/v1/plans', { body: { planFile: 'release.yaml', inputs: { build: '2026.12.06-1' }, agentUrls: { 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl } } });
  expect(started.status).toBe(201);
  const { planId } = started.body as { planId: string };
  suite.track(planId, `${planId}.review`);
  const planOf = async () => (await call(api.url, 'GET', `/v1/plans/${planId}`)).body as { waitingOn?: string; workflowStatus?: string };
  await eventually(async () => (await planOf()).waitingOn === 'human', 'the plan waiting on its review question', 60_000);
  const wrong = await call(api.url, 'POST', `/v1/tasks/${planId}/answer`, { body: { text: 'main' } });
  expect(wrong.status).toBe(404);
  expect(wrong.body).toMatchObject({ error: { code: 'not_found', message: expect.stringContaining(planId) } });
  const events = (await suite.client.workflow.getHandle(planId).fetchHistory()).events ?? [];
  expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateCompletedEventAttributes)).toHaveLength(0);
  expect(reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${planId}.review/`))).toHaveLength(1);
  // The plan still waits on its question, and ends when it is cancelled.
  expect(await planOf()).toMatchObject({ waitingOn: 'human', workflowStatus: 'RUNNING' });
  expect((await call(api.url, 'POST', `/v1/plans/${planId}/cancel`)).status).toBeLessThan(300);
  await eventually(async () => (await planOf()).workflowStatus !== 'RUNNING', 'the plan closed', 60_000);
}, 180_000);

itReplaysItsHistories(suite);
