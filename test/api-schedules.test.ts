// Schedules over the API: a Temporal Schedule that starts a plan every 2 s starts at least two
// within 10 s; deleting it stops it; bad timings and duplicates are refused.
import type { RunningServer } from '../server/main';
import { startCodeReviewer, type AgentHandle } from './agents';
import { call, startApi } from './support/api';
import { DIFF_TEXT, planDoc } from './support/plans';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';

interface Schedule {
  scheduleId: string;
  plan?: string;
  every?: string;
  overlap: string;
  recentPlans: Array<{ planId: string; uiUrl: string }>;
  actionsTaken: number;
}

let reviewer: AgentHandle;
let api: RunningServer;
const suite = plannerSuite('api-schedules');
beforeAll(async () => {
  reviewer = await startCodeReviewer({ questions: 0 }); // reviews at once: each plan completes by itself
  // A schedule every 2 s is what this suite watches run: below the default minimum interval (1m).
  api = await startApi(suite.client, suite.queue, { PLANNER_SCHEDULE_MIN_INTERVAL: '1s' });
});
afterAll(() => Promise.all([api?.close(), reviewer?.close()]));

const countPlans = async (scheduleId: string): Promise<number> =>
  (await suite.client.workflow.count(`WorkflowType = "PlanWorkflow" AND WorkflowId STARTS_WITH "plan-nightly-review-${scheduleId}"`)).count;

it('starts a plan every 2 s (at least two within 10 s); delete stops it', async () => {
  const scheduleId = `sched-${Date.now()}`;
  const doc = planDoc('nightly-review', { 'code-reviewer': reviewer.baseUrl }, [{ id: 'review', agent: 'code-reviewer', text: '{{inputs.diff}}' }]);
  const body = { scheduleId, every: '2s', plan: { ...doc, inputs: { diff: {} } }, inputs: { diff: DIFF_TEXT } };
  const created = await call(api.url, 'POST', '/v1/schedules', { body });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ scheduleId, plan: 'nightly-review', every: '2s', overlap: 'skip' });
  expect(created.headers.get('location')).toBe(`/v1/schedules/${scheduleId}`);
  const startedAt = Date.now();

  const two = await eventually(async () => {
    const r = await call(api.url, 'GET', `/v1/schedules/${scheduleId}`);
    const s = r.body as Schedule;
    return s.recentPlans.length >= 2 && s;
  }, 'two plans started by the schedule', 10_000, 250);
  expect(Date.now() - startedAt).toBeLessThan(10_000);
  expect(two.actionsTaken).toBeGreaterThanOrEqual(2);
  // They are real plans, each with the inputs, each completing.
  for (const { planId, uiUrl } of two.recentPlans.slice(0, 2)) {
    suite.track(planId, `${planId}.review`);
    expect(uiUrl).toContain(`/workflows/${encodeURIComponent(planId)}`);
    const done = await eventually(async () => {
      const r = await call(api.url, 'GET', `/v1/plans/${planId}`);
      return (r.body as { workflowStatus: string }).workflowStatus === 'COMPLETED' && r.body;
    }, `plan ${planId} completed`);
    expect(done).toMatchObject({ name: 'nightly-review', state: 'completed', inputs: { diff: DIFF_TEXT } });
  }
  const listed = await call(api.url, 'GET', '/v1/schedules');
  expect((listed.body as { schedules: Schedule[] }).schedules.map((s) => s.scheduleId)).toContain(scheduleId);
  expect((await call(api.url, 'POST', '/v1/schedules', { body: { ...body, every: '1h' } })).status).toBe(409);

  const deleted = await call(api.url, 'DELETE', `/v1/schedules/${scheduleId}`);
  expect(deleted.status).toBe(204);
  expect((await call(api.url, 'GET', `/v1/schedules/${scheduleId}`)).status).toBe(404);
  expect((await call(api.url, 'DELETE', `/v1/schedules/${scheduleId}`)).status).toBe(404);
  // Nothing more starts: the count settles and stays for three periods.
  const settled = await eventually(async () => {
    const a = await countPlans(scheduleId);
    await new Promise((r) => setTimeout(r, 500));
    return a === (await countPlans(scheduleId)) && a;
  }, 'the plan count settled');
  await new Promise((r) => setTimeout(r, 6000));
  expect(await countPlans(scheduleId)).toBe(settled);
  const ids = (await call(api.url, 'GET', `/v1/plans?pageSize=100`)).body as { plans: Array<{ planId: string }> };
  for (const p of ids.plans.filter((x) => x.planId.startsWith(`plan-nightly-review-${scheduleId}`))) suite.track(p.planId, `${p.planId}.review`);
});

it('refuses a bad timing, a bad plan and a missing plan, naming the field', async () => {
  const doc = planDoc('nightly-review', { 'code-reviewer': reviewer.baseUrl }, [{ id: 'review', agent: 'code-reviewer', text: DIFF_TEXT }]);
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ scheduleId: 's1', plan: doc }, /exactly one of every or cron/],
    [{ scheduleId: 's1', plan: doc, every: '2s', cron: '* * * * *' }, /exactly one of every or cron/],
    [{ scheduleId: 's1', plan: doc, every: 'often' }, /body\.every/],
    [{ scheduleId: 's1', plan: doc, every: '2s', overlap: 'sometimes' }, /body\.overlap/],
    [{ scheduleId: 'no spaces', plan: doc, every: '2s' }, /body\.scheduleId/],
    [{ scheduleId: 's1', every: '2s' }, /exactly one of planFile or plan/],
    [{ scheduleId: 's1', every: '2s', plan: { ...doc, steps: [] } }, /steps/],
    [{ scheduleId: 's1', every: '2s', planFile: '../x.yaml' }, /body\.planFile/],
  ];
  for (const [body, why] of cases) {
    const r = await call(api.url, 'POST', '/v1/schedules', { body });
    expect({ body, status: r.status }).toEqual({ body, status: 400 });
    expect(r.text).toMatch(why);
  }
  expect((await call(api.url, 'GET', '/v1/schedules/s1')).status).toBe(404);
});

itReplaysItsHistories(suite);
