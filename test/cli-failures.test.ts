// What a person sees when a delegated task fails or ends: the CLI names the innermost typed cause
// (type, message with the agent, and the activity that made the call), and `status` of a completed
// task shows its artifacts. Real dev server, real workers, hostile agents on loopback.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { startHostileAgent, type HostileAgent } from './a2a/hostile-agent';
import { connectClient, startWorkers, uniqueQueue, type RunningWorkers } from './harness/planner';
import { waitForStatus, type TaskHandle } from './support/delegated';
import { expectOneLineError, spawnPlanner } from './support/planner-cli';

const queue = uniqueQueue('cli-failures');
const planner = (...args: string[]) => spawnPlanner(queue, args).exit;

let client: Client;
let workers: RunningWorkers;
let badJson: HostileAgent;
let asker: HostileAgent;
let finisher: HostileAgent;

/** A REST-only, non-streaming card, so that `custom` answers need no JSON-RPC id. */
function restOnly(agent: HostileAgent): void {
  agent.setCard({
    ...agent.card,
    supportedInterfaces: [{ url: `${agent.baseUrl}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
    capabilities: { streaming: false, pushNotifications: false },
  });
}

function answerWith(agent: HostileAgent, task: Record<string, unknown>): void {
  agent.setMode('custom', { status: 200, contentType: 'application/a2a+json', body: JSON.stringify({ task }) });
}

const NOT_JSON = 'response body is not valid JSON( \\(at byte \\d+\\))?';

beforeAll(async () => {
  [client, workers, badJson, asker, finisher] = await Promise.all([connectClient(), startWorkers(queue), startHostileAgent(), startHostileAgent(), startHostileAgent()]);
  badJson.setMode('invalid-json');
  restOnly(asker);
  restOnly(finisher);
});

afterAll(async () => {
  await workers?.stop();
  await Promise.all([badJson?.close(), asker?.close(), finisher?.close()]);
  await client?.connection.close();
});

describe('a task that fails', () => {
  const id = `cli-badjson-${randomUUID().slice(0, 8)}`;
  // The card says it streams, so the first message goes out as SendStreamingMessage (and the JSON reply is refused as no stream).
  const cause = new RegExp(
    `InvalidAgentResponseError: agent hostile-badjson \\(http://127\\.0\\.0\\.1:\\d+/(jsonrpc|rest)\\) (SendMessage: ${NOT_JSON}|SendStreamingMessage: expected text/event-stream, got content-type 'application/json' \\(HTTP 200\\)) \\(activity sendMessage\\)`,
  );

  it('delegate --wait names the typed cause, the agent and the call', async () => {
    const r = await planner('delegate', '--agent', 'hostile-badjson', '--url', badJson.baseUrl, '--text', 'hi', '--id', id, '--wait');
    expect(r.stdout.trim()).toBe(id);
    expectOneLineError(r, 1, new RegExp(`^planner delegate: ${id} failed: ${cause.source}$`, 'm'));
  });

  it('status of the FAILED task shows why it failed', async () => {
    const [r, text] = await Promise.all([planner('status', id, '-o', 'json'), planner('status', id)]);
    expect(text.stdout).toMatch(new RegExp(`^ {2}failure: ${cause.source}$`, 'm'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const snapshot = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(snapshot).toMatchObject({ workflowId: id, workflowStatus: 'FAILED' });
    expect(snapshot.failure).toMatch(new RegExp(`^${cause.source}$`));
  });

  it('answer on the ended task says how and why it ended', async () => {
    const r = await planner('answer', id, 'main');
    expectOneLineError(r, 1, new RegExp(`^planner answer: ${id} already failed: ${cause.source}; nothing to answer$`, 'm'));
  });
});

describe('a task that ends while an answer is on its way', () => {
  it('answer says the task failed before the answer went through, and why', async () => {
    const id = `cli-asker-${randomUUID().slice(0, 8)}`;
    answerWith(asker, {
      id: 'task-ask',
      contextId: 'ctx-ask',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        timestamp: new Date().toISOString(),
        message: { messageId: 'q-1', role: 'ROLE_AGENT', parts: [{ text: 'Which branch?' }] },
      },
    });
    const started = await planner('delegate', '--agent', 'hostile-asker', '--url', asker.baseUrl, '--text', 'review this', '--id', id);
    expect(started).toMatchObject({ code: 0, stdout: `${id}\n` });
    await waitForStatus(client.workflow.getHandle(id) as TaskHandle, (s) => s.waitingOn === 'human', 'the question');

    // The answer is accepted, then the agent's replies are garbage (to the local send's look,
    // GetTask, before the send): the workflow fails with the update still open, which Temporal
    // reports as "completed before the Update completed".
    asker.setMode('invalid-json');
    const r = await planner('answer', id, 'main');
    const why = `InvalidAgentResponseError: agent hostile-asker \\(http://127\\.0\\.0\\.1:\\d+/rest\\) GetTask: ${NOT_JSON} \\(activity sendMessage\\)`;
    expectOneLineError(r, 1, new RegExp(`^planner answer: ${id} failed before the answer went through: ${why}$`, 'm'));
    expect(r.stderr).not.toContain('Workflow Update failed');
  });
});

describe('status of a completed task', () => {
  it('lists its artifacts with a size and a short preview', async () => {
    const id = `cli-finisher-${randomUUID().slice(0, 8)}`;
    const report = `# Report\n${'All checks passed. '.repeat(300)}`;
    const png = Buffer.alloc(300, 7).toString('base64');
    answerWith(finisher, {
      id: 'task-done',
      contextId: 'ctx-done',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
      artifacts: [
        { artifactId: 'a-1', name: 'report.md', parts: [{ text: report, mediaType: 'text/markdown' }] },
        { artifactId: 'a-2', name: 'review.json', parts: [{ data: { approved: true, comments: 2 } }] },
        { artifactId: 'a-3', parts: [{ raw: png, mediaType: 'image/png', filename: 'logo.png' }] },
      ],
    });
    const done = await planner('delegate', '--agent', 'hostile-finisher', '--url', finisher.baseUrl, '--text', 'report', '--id', id, '--wait');
    expect(done.code).toBe(0);

    const r = await planner('status', id, '-o', 'json');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const snapshot = JSON.parse(r.stdout) as { workflowStatus: string; failure?: string; artifacts?: Array<Record<string, unknown>> };
    expect(snapshot.workflowStatus).toBe('COMPLETED');
    expect(snapshot.failure).toBeUndefined();
    expect(snapshot.artifacts).toEqual([
      { artifactId: 'a-1', name: 'report.md', parts: 1, bytes: Buffer.byteLength(report), preview: expect.stringMatching(/^# Report All checks passed\. .{10,}…$/) },
      { artifactId: 'a-2', name: 'review.json', parts: 1, bytes: JSON.stringify({ approved: true, comments: 2 }).length, preview: '{"approved":true,"comments":2}' },
      { artifactId: 'a-3', name: 'logo.png', parts: 1, bytes: 300, preview: '(image/png, 300 bytes)' },
    ]);
    expect((snapshot.artifacts![0]!.preview as string).length).toBeLessThanOrEqual(81);
  });
});
