// `planner dev` as a user runs it (node bin/planner.js dev), against the run's dev server (so it
// starts none of its own), bundling the workflows itself: the banner, quiet start-up, the demo
// agents, a task served by its workers, and Ctrl-C stopping what it started.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import type { Client } from '@temporalio/client';
import { BASE_BRANCH_QUESTION } from '../demo/agents';
import { freePort } from '../deploy/dev/dev-server';
import { connectClient, testEnv, uniqueQueue } from './harness/planner';
import { DIFF, waitForStatus, type TaskHandle } from './support/delegated';
import { spawnPlanner, type Exit, type Spawned } from './support/planner-cli';
import { eventually } from './support/wait';

const queue = uniqueQueue('cli-dev');
/** Bundling the workflows takes seconds, more when the two cores are shared. */
const BANNER_WITHIN_MS = 150_000;

let client: Client;
let dev: Spawned;
const output = { stdout: '', stderr: '' };
let reviewerPort: number;
let deployerPort: number;
const delegatedIds: string[] = [];

beforeAll(async () => {
  client = await connectClient();
  [reviewerPort, deployerPort] = await Promise.all([freePort(), freePort()]);
  dev = spawnPlanner(queue, ['dev'], {
    env: {
      PLANNER_WORKFLOW_BUNDLE: '', // unset: planner dev bundles the workflows itself, quietly
      PLANNER_DEMO_REVIEWER_PORT: String(reviewerPort),
      PLANNER_DEMO_DEPLOYER_PORT: String(deployerPort),
      PLANNER_LOG_LEVEL: 'info',
      PLANNER_PORT: '0', // the API on any free port
      PLANNER_PLAN_DIR: join(__dirname, '..', 'demo', 'plans'), // the face's skills (the run's cwd is a scratch dir)
      PLANNER_API_TOKEN: '',
    },
    killAfterMs: 400_000,
  });
  dev.child.stdout!.on('data', (b: Buffer) => (output.stdout += b.toString()));
  dev.child.stderr!.on('data', (b: Buffer) => (output.stderr += b.toString()));
});

afterAll(async () => {
  if (dev && dev.child.exitCode === null && dev.child.signalCode === null) {
    dev.child.kill('SIGKILL');
    await dev.exit;
  }
  await Promise.all(delegatedIds.map((id) => client.workflow.getHandle(id).terminate('cli-dev test done').catch(() => undefined)));
  await client?.connection.close();
});

/** The banner, once planner dev printed all of it. */
async function banner(): Promise<string> {
  let exited: Exit | undefined;
  void dev.exit.then((r) => (exited = r));
  return eventually(
    () => {
      if (exited) throw new Error(`planner dev exited with ${exited.code}:\n${exited.stderr}\n${exited.stdout.slice(-4000)}`);
      const m = /^-{20,}\n(a2a-planner is running[\s\S]*?)\n-{20,}$/m.exec(output.stderr);
      return m?.[1];
    },
    'the banner of planner dev',
    BANNER_WITHIN_MS,
    250,
  );
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('planner dev', () => {
  let text: string;

  it('prints a banner with the agents, the Temporal UI and the next commands, and no webpack output', async () => {
    text = await banner();
    expect(text).toMatch(new RegExp(`^ {2}code-reviewer +http://127\\.0\\.0\\.1:${reviewerPort}$`, 'm'));
    expect(text).toMatch(new RegExp(`^ {2}deployer +http://127\\.0\\.0\\.1:${deployerPort}$`, 'm'));
    expect(text).toMatch(/^ {2}Temporal UI +http:\/\/\S+$/m);
    // The run's server answered at TEMPORAL_ADDRESS, so planner dev used it and started none.
    expect(text).toContain(`${testEnv().address} (already running; left as it is)`);
    expect(text).toContain(`task queues ${queue} and ${queue}-watch`);
    for (const next of ['npx planner demo', 'npx planner inbox', 'npx planner run demo/plans/release.yaml --wait']) {
      expect(text).toMatch(new RegExp(`^ {2}${next.replace(/[.]/g, '\\.')}\\s`, 'm'));
    }
    // The API runs too, with a token of its own kept under .planner/ in the working directory.
    const api = /^ {2}planner API +(http:\/\/127\.0\.0\.1:\d+)\/v1 \(token in \.planner\/api-token\)$/m.exec(text);
    expect(api).not.toBeNull();
    const token = readFileSync(join(tmpdir(), '.planner', 'api-token'), 'utf8').trim();
    expect((await fetch(`${api![1]}/v1/inbox`)).status).toBe(401);
    expect((await fetch(`${api![1]}/v1/inbox`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    // The bundle was built here (a progress line says so), with nothing of webpack's on the way.
    expect(output.stderr).toMatch(/^Bundling the workflows: done in \d+\.\d s$/m);
    const everything = output.stdout + output.stderr;
    expect(everything).not.toMatch(/webpack|compiled successfully|asset workflow-bundle|Workflow bundle created/i);
    // Not a terminal: the logs are JSON lines. (They travel on stdout, the banner on stderr: the
    // log line that follows the banner may arrive a moment after it.)
    await eventually(() => output.stdout.includes('"msg":"planner dev running"'), 'the log line after the banner', 10_000);
    const logs = output.stdout.trim().split('\n');
    for (const line of logs) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(logs.map((l) => (JSON.parse(l) as { msg?: string }).msg)).toContain('planner dev running');
  }, BANNER_WITHIN_MS + 10_000);

  it('serves the demo agents: each answers its agent card', async () => {
    for (const [name, port] of [['code-reviewer', reviewerPort], ['deployer', deployerPort]] as const) {
      const res = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`);
      expect(res.status).toBe(200);
      const card = (await res.json()) as { name?: string; supportedInterfaces?: Array<{ url: string }> };
      expect(card.name).toBe(name);
      expect(card.supportedInterfaces?.[0]?.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/`));
    }
  });

  it("serves the A2A face: a plan started there reaches the demo reviewer on the port it listens on", async () => {
    const api = /^ {2}planner API +(http:\/\/127\.0\.0\.1:\d+)\/v1/m.exec(text)![1]!;
    const token = readFileSync(join(tmpdir(), '.planner', 'api-token'), 'utf8').trim();
    const rpc = async (method: string, params: object): Promise<{ result?: { id?: string; status?: { state: string; message?: { parts: Array<{ text?: string }> } } }; error?: unknown }> =>
      (await fetch(`${api}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }).then((r) => r.json())) as never;
    const sent = await rpc('SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Release payments-api' }], metadata: { skill: 'release' } },
      configuration: { returnImmediately: true },
    });
    expect(sent.error).toBeUndefined();
    const taskId = (sent.result as { task: { id: string } }).task.id;
    delegatedIds.push(taskId, `${taskId}.review`);
    const asked = await eventually(async () => {
      const t = (await rpc('GetTask', { id: taskId })).result as { status: { state: string; message?: { parts: Array<{ text?: string }> } } };
      return t.status.state === 'TASK_STATE_INPUT_REQUIRED' && t;
    }, 'the reviewer question on the face task', 30_000);
    expect(asked.status.message?.parts[0]?.text).toContain(BASE_BRANCH_QUESTION);
  }, 60_000);

  it("runs the workers: a task delegated to the banner's reviewer reaches INPUT_REQUIRED", async () => {
    const reviewerUrl = /^ {2}code-reviewer +(http:\S+)$/m.exec(text)?.[1];
    expect(reviewerUrl).toBeDefined();
    const id = `cli-dev-${randomUUID().slice(0, 8)}`;
    delegatedIds.push(id);
    const started = await spawnPlanner(queue, ['delegate', '--agent', 'code-reviewer', '--url', reviewerUrl!, '--text', DIFF, '--id', id]).exit;
    expect(started).toMatchObject({ code: 0, stdout: `${id}\n`, stderr: '' });
    // Nothing else serves this queue: planner dev's workers sent the message and watch the task.
    const status = await waitForStatus(client.workflow.getHandle(id) as TaskHandle, (s) => s.waitingOn === 'human', 'the question', 30_000);
    expect(status).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', turn: 1, text: BASE_BRANCH_QUESTION });
  }, 90_000);

  it('stops on SIGINT with exit code 0 within a few seconds, and the agents stop listening', async () => {
    const sent = Date.now();
    dev.child.kill('SIGINT');
    const exit = await dev.exit;
    const tookMs = Date.now() - sent;
    expect({ code: exit.code, signal: dev.child.signalCode }).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(15_000);
    expect(exit.stderr).toContain('SIGINT: stopping what planner dev started');
    expect(await refused(reviewerPort)).toBe(true);
    expect(await refused(deployerPort)).toBe(true);
    // The run's dev server was not ours to stop: it still answers.
    expect((await client.workflow.getHandle(delegatedIds[0]!).describe()).status.name).toBe('RUNNING');
  }, 30_000);
});
