// The plan commands as a person uses them, the CLI as child processes against the run's dev server,
// the planner's workers and the demo agents: run --wait on the seed plan while another terminal
// reads the inbox, answers, and an operator approves; refusals of bad plans; status, artifacts,
// cancel; and planner demo to its end.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from './support/scratch';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { PLAN_WORKFLOW_TYPE } from '../client/plan';
import { uniqueQueue } from './harness/planner';
import { expectOneLineError, spawnPlanner, type Exit } from './support/planner-cli';
import { plannerSuite } from './support/suite';
import { RELEASE_PLAN } from './support/plans';
import { eventually } from './support/wait';

const suite = plannerSuite('cli-plans');
const planner = (args: string[], env: Record<string, string> = {}, killAfterMs?: number) => spawnPlanner(suite.queue, args, { env, killAfterMs });
let reviewer: AgentHandle;
let deployer: AgentHandle;
const dir = scratchDir('cli-plans');

beforeAll(async () => {
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
});
afterAll(async () => {
  await Promise.all([reviewer?.close(), deployer?.close()]);
});

const agentFlags = () => ['--agent-url', `code-reviewer=${reviewer.baseUrl}`, '--agent-url', `deployer=${deployer.baseUrl}`];
const plansOnQueue = async () => (await suite.client.workflow.count(`WorkflowType = "${PLAN_WORKFLOW_TYPE}" AND TaskQueue = "${suite.queue}"`)).count;

interface InboxLine {
  workflowId: string;
  planId?: string;
  stepId?: string;
  waitingOn: string;
  text?: string;
  taskId?: string;
}
async function inboxOf(planId: string): Promise<InboxLine[]> {
  const r = await planner(['inbox', '--plan', planId, '-o', 'json']).exit;
  expect(r).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(r.stdout) as InboxLine[]; // one JSON array, [] when nothing waits
}

describe('run --wait on the seed plan, answered and approved from other terminals', () => {
  it('shows each transition, the question, the approval and the artifacts; exit 0', async () => {
    const planId = `release-cli-${Date.now()}`;
    const run = planner(['run', RELEASE_PLAN, '--wait', '--id', planId, ...agentFlags()], {}, 120_000);
    const question = await eventually(async () => (await inboxOf(planId)).find((e) => e.waitingOn === 'human'), 'the question in the inbox', 60_000, 300);
    expect(question).toMatchObject({ workflowId: `${planId}.review`, planId, stepId: 'review', text: BASE_BRANCH_QUESTION });

    const answered = await planner(['answer', planId, 'review', 'main', '-o', 'json']).exit;
    expect(answered.code).toBe(0);
    expect(JSON.parse(answered.stdout)).toMatchObject({ turn: 1, state: 'TASK_STATE_COMPLETED' });

    const approval = await eventually(async () => (await inboxOf(planId)).find((e) => e.waitingOn === 'operator'), 'the approval in the inbox', 60_000, 300);
    expect(approval).toMatchObject({ stepId: 'deploy', text: expect.stringMatching(/^An operator must approve this deploy at http:/) });
    await deployer.approve(approval.taskId!);

    const done: Exit = await run.exit;
    expect(done.code).toBe(0);
    const lines = done.stdout.split('\n');
    expect(lines[0]).toBe(planId);
    const order = [
      /review +waiting on a human \(question 1\)/,
      new RegExp(`code-reviewer asks: ${BASE_BRANCH_QUESTION.replace('?', '\\?')}`),
      new RegExp(`answer: planner answer ${planId} review '<text>'`),
      /review +completed: review\.json/,
      /deploy +waiting on an operator \(approval\)/,
      /deployer: An operator must approve this deploy at http:\/\/127\.0\.0\.1:\d+\/approve\//,
      /deploy +completed: deploy-result\.json/,
      new RegExp(`^plan ${planId} completed$`),
      /^artifact review\/review\.json:$/,
      /^artifact deploy\/deploy-result\.json:$/,
      /^Temporal UI: http.*\/workflows\/release-cli-/,
    ];
    let at = 0;
    for (const re of order) {
      const i = lines.findIndex((l, j) => j >= at && re.test(l));
      expect({ re: String(re), found: i >= 0 }).toEqual({ re: String(re), found: true });
      at = i + 1;
    }
    expect(done.stdout).toContain('"version": "2026.10.06-1"');
    expect(done.stdout).toContain('"baseBranch": "main"');

    // status, and the artifacts as files.
    const status = await planner(['status', planId, '-o', 'json']).exit;
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ planId, workflowStatus: 'COMPLETED', state: 'completed', steps: [{ id: 'review', state: 'completed' }, { id: 'deploy', state: 'completed' }] });
    const out = join(dir, 'artifacts');
    const written = await planner(['artifacts', planId, '--out', out, '-o', 'json']).exit;
    expect(written).toMatchObject({ code: 0, stderr: '' });
    // -o json: one array of the files written, with their sizes.
    const files = JSON.parse(written.stdout) as Array<{ file: string; bytes: number }>;
    expect(files.map((f) => f.file).sort()).toEqual([join(out, 'deploy', 'deploy-result.json'), join(out, 'review', 'review.json')]);
    for (const f of files) expect(f.bytes).toBe(readFileSync(f.file).length);
    expect(JSON.parse(readFileSync(join(out, 'review', 'review.json'), 'utf8'))).toMatchObject({ baseBranch: 'main', verdict: 'approve' });
    expect(JSON.parse(readFileSync(join(out, 'deploy', 'deploy-result.json'), 'utf8'))).toMatchObject({ version: '2026.10.06-1' });
    suite.track(planId, `${planId}.review`, `${planId}.deploy`);
  }, 150_000);
});

describe('plans that cannot run', () => {
  it('plan check and run refuse them with the problem and the line (exit 2), and nothing starts', async () => {
    const file = (name: string, text: string): string => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const agents = `agents:\n  rev: { url: "${'http://127.0.0.1:9'}" }\n`;
    const cycle = file('cycle.yaml', `name: c\n${agents}steps:\n  - { id: a, agent: rev, text: x, dependsOn: [b] }\n  - { id: b, agent: rev, text: x, dependsOn: [a] }\n`);
    const unknownAgent = file('agent.yaml', `name: u\n${agents}steps:\n  - { id: a, agent: reviewer, text: x }\n`);
    const broken = file('broken.yaml', 'name: b\nsteps: [\n  - a\n');
    const missingInput = file('input.yaml', `name: m\ninputs:\n  build: {}\n${agents}steps:\n  - { id: a, agent: rev, text: "{{inputs.build}}" }\n`);
    const before = await plansOnQueue();
    const [c1, c2, c3, c4, c5, ok, okJson] = await Promise.all([
      planner(['run', cycle]).exit,
      planner(['run', unknownAgent, '--wait']).exit,
      planner(['plan', 'check', broken]).exit,
      planner(['run', missingInput]).exit,
      planner(['run', join(dir, 'nope.yaml')]).exit,
      planner(['plan', 'check', RELEASE_PLAN]).exit,
      planner(['plan', 'check', RELEASE_PLAN, '-o', 'json']).exit,
    ]);
    expectOneLineError(c1, 2, /^planner run: .*cycle\.yaml: line 5: steps\[0\]\.dependsOn: dependency cycle: a → b → a \(see planner run --help\)$/m);
    expectOneLineError(c2, 2, /^planner run: .*agent\.yaml: line 5: steps\[0\]\.agent: unknown agent "reviewer" \(agents: rev\)/);
    expectOneLineError(c3, 2, /^planner plan check: .*broken\.yaml: .*not valid YAML/);
    expectOneLineError(c4, 2, /^planner run: .*input\.yaml: line 3: inputs\.build: missing input "build": give it a value/);
    expectOneLineError(c5, 2, /^planner run: .*nope\.yaml: \(document\): cannot read the plan: no such file/);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/plan release is valid: 2 steps\n {2}review \(code-reviewer\)\n {2}deploy \(deployer\) after review/);
    expect(okJson).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(okJson.stdout)).toEqual({
      file: RELEASE_PLAN,
      name: 'release',
      steps: [
        { id: 'review', agent: 'code-reviewer', dependsOn: [] },
        { id: 'deploy', agent: 'deployer', dependsOn: ['review'] },
      ],
    });
    expect(await plansOnQueue()).toBe(before);
  }, 120_000);
});

describe('cancel', () => {
  it("cancelling a plan from the CLI cancels its waiting step and the agent's task", async () => {
    const planId = `release-cancel-${Date.now()}`;
    const started = await planner(['run', RELEASE_PLAN, '--id', planId, ...agentFlags()]).exit;
    expect(started).toMatchObject({ code: 0, stdout: `${planId}\n` });
    const q = await eventually(async () => (await inboxOf(planId)).find((e) => e.waitingOn === 'human'), 'the question', 60_000, 300);
    const cancelled = await planner(['cancel', planId, '-o', 'json']).exit;
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ workflowStatus: 'CANCELLED', steps: [{ id: 'review', state: 'cancelled' }, { id: 'deploy', state: 'skipped' }] });
    expect(await reviewer.taskState(q.taskId!)).toBe('TASK_STATE_CANCELED');
    // A step that is not waiting on a question: the answer is refused (exit 1) with the reason.
    const late = await planner(['answer', planId, 'review', 'main']).exit;
    expectOneLineError(late, 1, /^planner answer: step review of plan release-cancel-\d+ is not waiting on a question \(it is cancelled\)$/m);
    suite.track(planId, `${planId}.review`);
  }, 120_000);
});

describe('schedule', () => {
  it('create, list and delete: text for a person, one JSON document with -o json', async () => {
    const id = `cli-sched-${Date.now()}`;
    const other = `${id}-text`;
    const [created, text] = await Promise.all([
      planner(['schedule', 'create', RELEASE_PLAN, '--every', '24h', '--id', id, ...agentFlags(), '-o', 'json']).exit,
      planner(['schedule', 'create', RELEASE_PLAN, '--cron', '0 3 * * 1-5', '--id', other, ...agentFlags()]).exit,
    ]);
    try {
      expect(created).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(created.stdout)).toMatchObject({ scheduleId: id, plan: 'release', overlap: 'skip', paused: false, recentPlans: [], actionsTaken: 0, nextTimes: expect.any(Array) });
      expect(text).toMatchObject({ code: 0, stderr: '' });
      expect(text.stdout).toMatch(new RegExp(`^created schedule ${other}: plan release on cron 0 3 \\* \\* 1-5 \\(overlap skip\\)\nnext runs: \\S+`));
      expect(text.stdout.trimEnd().split('\n').pop()).toBe(`next: planner schedule list, or planner schedule trigger ${other} to start one now`);
      const listed = await eventually(async () => {
        const r = await planner(['schedule', 'list', '-o', 'json']).exit;
        const all = JSON.parse(r.stdout) as Array<{ scheduleId: string }>;
        return all.some((s) => s.scheduleId === id) && all.some((s) => s.scheduleId === other) ? all : undefined;
      }, 'both schedules in planner schedule list -o json');
      expect(listed.find((s) => s.scheduleId === id)).toMatchObject({ plan: 'release', overlap: 'skip' });
    } finally {
      const deleted = await Promise.all([planner(['schedule', 'delete', id]).exit, planner(['schedule', 'delete', other]).exit]);
      expect(deleted.map((d) => d.code)).toEqual([0, 0]);
    }
  }, 120_000);
});

describe('planner demo', () => {
  it('runs the seed plan to its end non-interactively and prints the review artifact and the deploy result', async () => {
    // Demo agents on ports of their own (nothing listens there yet): demo starts them, and workers, itself.
    const queue = uniqueQueue('demo');
    const r = await spawnPlanner(queue, ['demo'], { env: { PLANNER_DEMO_REVIEWER_PORT: '0', PLANNER_DEMO_DEPLOYER_PORT: '0' }, killAfterMs: 120_000 }).exit;
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/starting the workers, the demo agents here/);
    expect(r.stdout).toMatch(/code-reviewer asks: Which base branch should I compare this diff against\?/);
    expect(r.stdout).toMatch(/operator \(simulated\): answers "main"/);
    expect(r.stdout).toMatch(/operator \(simulated\): approves at http:\/\/127\.0\.0\.1:\d+\/approve\//);
    expect(r.stdout).toMatch(/plan plan-release-[0-9a-f]{8} completed/);
    expect(r.stdout).toMatch(/artifact review\/review\.json:\n(.*\n)*\s+"verdict": "approve"/);
    expect(r.stdout).toMatch(/artifact deploy\/deploy-result\.json:\n(.*\n)*\s+"status": "deployed"/);
    expect(r.stdout).toMatch(/Temporal UI: http:\/\/.*\/workflows\/plan-release-/);
  }, 150_000);

  it('uses the workers already polling its queue and starts only the missing agents', async () => {
    const spawned = spawnPlanner(suite.queue, ['demo'], { env: { PLANNER_DEMO_REVIEWER_PORT: '0', PLANNER_DEMO_DEPLOYER_PORT: '0' }, killAfterMs: 120_000 });
    const demoPid = spawned.child.pid!;
    const r = await spawned.exit;
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/starting the demo agents here/);
    expect(r.stdout).not.toMatch(/starting the workers/);
    const planId = /plan (plan-release-[0-9a-f]{8}) completed/.exec(r.stdout)?.[1];
    expect(planId).toBeDefined();
    suite.track(planId!, `${planId}.review`, `${planId}.deploy`);
    // Every workflow task of the plan and its steps was run by the suite's workers, none by the demo process.
    const identities = new Set<string>();
    for (const id of [planId!, `${planId}.review`, `${planId}.deploy`]) {
      const history = await suite.client.workflow.getHandle(id).fetchHistory();
      for (const e of history.events ?? []) if (e.workflowTaskStartedEventAttributes?.identity) identities.add(e.workflowTaskStartedEventAttributes.identity);
    }
    expect(identities.size).toBeGreaterThan(0);
    for (const identity of identities) expect(identity.startsWith(`${demoPid}@`)).toBe(false);
  }, 150_000);
});
