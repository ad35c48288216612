// The `planner` CLI, run as a child process exactly as a user runs it (node bin/planner.js), against
// the run's dev server, the planner's workers in this process and real A2A agents.
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { BASE_BRANCH_QUESTION, startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { connectClient, startWorkers, uniqueQueue, type RunningWorkers } from './harness/planner';
import { DEPLOY, DIFF, waitForStatus, type TaskHandle } from './support/delegated';
import { eventually } from './support/wait';
import { expectOneLineError as expectOneLineErrorOf, spawnPlanner as spawnPlannerOn, type Exit, type Spawned } from './support/planner-cli';

const queue = uniqueQueue('cli');
const plan = `plan-cli-${randomUUID().slice(0, 8)}`;

let client: Client;
let workers: RunningWorkers;
let reviewer: AgentHandle;
let deployer: AgentHandle;

const spawnPlanner = (args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) => spawnPlannerOn(queue, args, opts);
const planner = (...args: string[]): Promise<Exit> => spawnPlanner(args).exit;

/** An expected error: one line naming the problem, no stack trace, nothing on stdout. */
function expectOneLineError(r: Exit, code: number, message: RegExp): void {
  expectOneLineErrorOf(r, code, message);
  expect(r.stdout).toBe('');
}

beforeAll(async () => {
  client = await connectClient();
  [workers, reviewer, deployer] = await Promise.all([startWorkers(queue), startCodeReviewer(), startDeployer()]);
});

afterAll(async () => {
  await workers?.stop();
  await reviewer?.close();
  await deployer?.close();
  await client?.connection.close();
});

describe('bad command lines', () => {
  it('exit 2 with one line that names the problem', async () => {
    const agent = ['--agent', 'code-reviewer', '--url', 'http://127.0.0.1:9'];
    const [unknownCommand, unknownFlag, missingAgent, badDuration, badData, badTurn, missingId, help] = await Promise.all([
      planner('frobnicate'),
      planner('delegate', ...agent, '--text', 'hi', '--colour', 'red'),
      planner('delegate', '--url', 'http://127.0.0.1:9', '--text', 'hi'),
      planner('delegate', ...agent, '--text', 'hi', '--input-deadline', 'soon', '--on-input-deadline', 'remind'),
      planner('delegate', ...agent, '--data', '{"branch": main}'),
      planner('answer', 'task-x', 'main', '--turn', 'two'),
      planner('status'),
      planner('delegate', '--help'),
    ]);
    expectOneLineError(unknownCommand, 2, /^planner: unknown command "frobnicate" \(commands: dev, demo, run, plan, inbox, status, answer, cancel, artifacts, artifact, schedule, delegate, serve, worker, cluster, help\)/);
    expectOneLineError(unknownFlag, 2, /^planner delegate: unknown flag --colour/);
    expectOneLineError(missingAgent, 2, /^planner delegate: missing --agent/);
    expectOneLineError(badDuration, 2, /^planner delegate: bad --input-deadline "soon": a duration such as 90s, 30m, 72h or 2d/);
    expectOneLineError(badData, 2, /^planner delegate: bad JSON in --data: /);
    expectOneLineError(badTurn, 2, /^planner answer: bad --turn "two"/);
    expectOneLineError(missingId, 2, /^planner status: missing PLAN_OR_WORKFLOW_ID/);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: planner delegate --agent NAME (--url URL | --card FILE)');
  });

  it('an unknown workflow id is a runtime failure (exit 1) that says so', async () => {
    const [status, answer] = await Promise.all([planner('status', 'no-such-task'), planner('answer', 'no-such-task', 'main')]);
    expectOneLineError(status, 1, /^planner status: no plan or delegated task with id no-such-task$/m);
    expectOneLineError(answer, 1, /^planner answer: no plan or delegated task with id no-such-task$/m);
  });
});

describe('delegate, inbox, answer, status, cancel', () => {
  const reviewId = `cli-review-${randomUUID().slice(0, 8)}`;
  let review: Spawned;
  let reviewHandle: TaskHandle;
  let deployHandle: TaskHandle;

  it('delegate starts tasks; the inbox shows who waits on whom', async () => {
    // --wait keeps this one running until the task ends; its result is checked after the answer.
    review = spawnPlanner([
      'delegate', '--agent', 'code-reviewer', '--url', reviewer.baseUrl, '--text', DIFF, '--plan', plan,
      '--id', reviewId, '--input-deadline', '1h', '--on-input-deadline', 'remind', '--wait', '-o', 'json',
    ]);
    // The deployer by its card, from a file named relative to the working directory.
    const cardFile = `deployer-card-${randomUUID().slice(0, 8)}.json`;
    writeFileSync(join(tmpdir(), cardFile), JSON.stringify(deployer.card));
    const deploy = await planner('delegate', '--agent', 'deployer', '--card', cardFile, '--text', DEPLOY, '--plan', plan);
    rmSync(join(tmpdir(), cardFile));
    expect(deploy).toMatchObject({ code: 0, stderr: '' });
    const deployId = deploy.stdout.trim();
    expect(deployId).toMatch(/^task-deployer-[0-9a-f-]{36}$/);

    reviewHandle = client.workflow.getHandle(reviewId);
    deployHandle = client.workflow.getHandle(deployId);
    const question = await waitForStatus(reviewHandle, (s) => s.waitingOn === 'human', 'the question');
    expect(question).toMatchObject({ turn: 1, text: BASE_BRANCH_QUESTION, planId: plan });
    const approval = await waitForStatus(deployHandle, (s) => s.waitingOn === 'operator', 'the approval');
    expect((await reviewHandle.describe()).taskQueue).toBe(queue); // PLANNER_TASK_QUEUE was honoured

    // Visibility lags the workflows a little; the CLI reads it as it is.
    await eventually(async () => (await client.workflow.count(`PlanId = "${plan}" AND PlannerWaitingOn IN ("human","operator")`)).count === 2, 'visibility to list both');

    const [table, lines] = await Promise.all([planner('inbox', '--plan', plan), planner('inbox', '--plan', plan, '--output', 'json')]);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    const [head, ...rows] = table.stdout.trimEnd().split('\n');
    expect(head).toMatch(/^WORKFLOW ID\s+AGENT\s+STEP\s+WAITING ON\s+TURN\s+AGE\s+QUESTION \/ APPROVAL \/ WORK$/);
    expect(rows).toHaveLength(2);
    const reviewRow = rows.find((r) => r.startsWith(reviewId));
    const deployRow = rows.find((r) => r.startsWith(deployId));
    expect(reviewRow).toMatch(new RegExp(`^${reviewId}\\s+code-reviewer\\s+-\\s+human\\s+1\\s+\\d+s\\s+${escape(BASE_BRANCH_QUESTION)}$`));
    expect(deployRow).toMatch(/\s+deployer\s+-\s+operator\s+-\s+\d+s\s+An operator must approve this deploy at http:/);

    expect(lines).toMatchObject({ code: 0, stderr: '' });
    const entries = JSON.parse(lines.stdout) as Array<Record<string, unknown>>; // one JSON array
    expect(entries).toHaveLength(2);
    expect(entries).toContainEqual(expect.objectContaining({ workflowId: reviewId, agent: 'code-reviewer', planId: plan, waitingOn: 'human', turn: 1, text: BASE_BRANCH_QUESTION }));
    expect(entries).toContainEqual(expect.objectContaining({ workflowId: deployId, agent: 'deployer', waitingOn: 'operator', text: approval.text, taskId: approval.taskId }));
  });

  it('answer: a stale turn is rejected with the reason (exit 1); the current turn completes the task, and answer says so in words', async () => {
    const stale = await planner('answer', reviewId, 'main', '--turn', '2');
    expectOneLineError(stale, 1, /^planner answer: answer rejected: the answer names turn 2, but the current question is turn 1$/m);

    const answered = await planner('answer', reviewId, 'main', '--turn', '1');
    expect(answered).toMatchObject({ code: 0, stderr: '' });
    // For a person: the question answered, the agent's state after it (with its text), the next step.
    const [first, second, ...rest] = answered.stdout.trimEnd().split('\n');
    expect(first).toBe(`answered question 1 of ${reviewId}`);
    expect(second).toBe("the agent's task is now completed:");
    expect(rest.slice(0, -1).every((l) => l.startsWith('    '))).toBe(true);
    expect(rest[rest.length - 1]).toBe(`next: planner artifacts ${reviewId} --out DIR`);

    const result = await reviewHandle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(result.artifacts.find((a) => a.name === 'review.json')?.parts[0]).toMatchObject({ data: { baseBranch: 'main' } });

    // `delegate --wait -o json` printed one JSON document: the id and the same result.
    const waited = await review.exit;
    expect(waited).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(waited.stdout)).toEqual({ workflowId: reviewId, result: JSON.parse(JSON.stringify(result)) });
  });

  it('status prints the task and the workflow status; cancel cancels the remote task and waits for the close', async () => {
    const [text, status, cancelled] = await Promise.all([planner('status', reviewId), planner('status', reviewId, '-o', 'json'), planner('cancel', deployHandle.workflowId, '-o', 'json')]);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(new RegExp(`^${reviewId}: code-reviewer task, workflow completed, the agent's task completed\n`));
    expect(text.stdout).toMatch(/^ {2}artifact review\.json \(\d+ bytes\): \{/m);
    expect(text.stdout.trimEnd().split('\n').pop()).toBe(`next: planner artifacts ${reviewId} --out DIR`);
    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(status.stdout)).toMatchObject({ workflowId: reviewId, workflowStatus: 'COMPLETED', taskQueue: queue, agent: 'code-reviewer', state: 'TASK_STATE_COMPLETED', waitingOn: 'none', turn: 1 });

    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ workflowId: deployHandle.workflowId, workflowStatus: 'CANCELLED', state: 'TASK_STATE_CANCELED', agent: 'deployer' });
    expect((await deployHandle.describe()).status.name).toBe('CANCELLED');
    const taskId = (JSON.parse(cancelled.stdout) as { taskId: string }).taskId;
    expect(await deployer.taskState(taskId)).toBe('TASK_STATE_CANCELED');

    const again = await planner('cancel', reviewId);
    expectOneLineError(again, 1, /^planner cancel: cli-review-\S+ already closed as COMPLETED; nothing to cancel$/m);
  });
});

describe('planner worker', () => {
  it('runs the workers until SIGTERM, then exits 0', async () => {
    const { child, exit } = spawnPlanner(['worker'], { env: { PLANNER_TASK_QUEUE: uniqueQueue('cli-worker'), PLANNER_LOG_LEVEL: 'info' } });
    let seen = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (b: Buffer) => {
        seen += b.toString();
        if (seen.includes('worker running')) resolve();
      });
      void exit.then((r) => reject(new Error(`the worker exited with ${r.code}: ${r.stderr}`)));
    });
    child.kill('SIGTERM');
    expect((await exit).code).toBe(0);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
