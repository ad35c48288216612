// The sendMessage activity over real HTTP against real @a2a-js/sdk agents, behind a proxy that
// loses replies, refuses ListTasks like a2a-go, stalls, and breaks streams. The workflow side of
// `unresolved` is not wired yet, so the activity runs in MockActivityEnvironment with the
// attempt, heartbeat details, budget and cancellation a Temporal retry would give it.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Info } from '@temporalio/activity';
import { DefaultLogger } from '@temporalio/worker';
import { AgentDirectory } from '../activities/agents';
import { createSendMessage, type SendInput, type SendOutcome } from '../activities/send-message';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { startCuttingProxy, type CuttingProxy } from './support/cutting-proxy';
import { DEPLOY, DIFF } from './support/delegated';

type Binding = 'JSONRPC' | 'HTTP+JSON';

let agents: AgentDirectory;
const closers: Array<() => Promise<void>> = [];
let seq = 0;

beforeEach(() => {
  agents = new AgentDirectory({ timeouts: { connectMs: 2_000, headersMs: 30_000, bodyMs: 30_000, streamIdleMs: 30_000 } });
});
afterEach(async () => {
  await agents.close();
  while (closers.length) await closers.pop()!();
});

async function behindProxy(start: Promise<AgentHandle>): Promise<{ agent: AgentHandle; proxy: CuttingProxy }> {
  const agent = await start;
  closers.push(() => agent.close());
  const proxy = await startCuttingProxy(agent.baseUrl);
  closers.push(() => proxy.close());
  return { agent, proxy };
}

interface Run {
  outcome?: SendOutcome;
  error?: unknown;
  beats: Array<{ at: number; details: unknown }>;
  ms: number;
  env: MockActivityEnvironment;
}

/** One attempt of the activity, with the Info a Temporal retry would give it. */
async function attempt(input: SendInput, info: Partial<Info> = {}, during?: (env: MockActivityEnvironment) => void): Promise<Run> {
  const now = Date.now();
  const env = new MockActivityEnvironment({
    attempt: 1,
    heartbeatTimeoutMs: 1_500,
    startToCloseTimeoutMs: 20_000,
    scheduledTimestampMs: now,
    currentAttemptScheduledTimestampMs: now,
    ...info,
  }, { logger: new DefaultLogger('ERROR') });
  const beats: Run['beats'] = [];
  env.on('heartbeat', (details: unknown) => beats.push({ at: Date.now(), details }));
  during?.(env);
  const sendMessage = createSendMessage(agents, { alert: async () => undefined });
  try {
    const outcome: SendOutcome = await env.run(sendMessage, input);
    return { outcome, beats, ms: Date.now() - now, env };
  } catch (error) {
    return { error, beats, ms: Date.now() - now, env };
  }
}

const lastDetails = (run: Run): unknown => run.beats[run.beats.length - 1]?.details;
const taskIdIn = (details: unknown): string | undefined =>
  details !== null && typeof details === 'object' && typeof (details as { taskId?: unknown }).taskId === 'string'
    ? (details as { taskId: string }).taskId
    : undefined;

function firstMessage(agent: AgentHandle, url: string, text = DIFF): SendInput {
  seq += 1;
  return { agent: { name: agent.name, url }, messageId: `send-test-${Date.now()}-${seq}/0`, message: { text }, timeoutMs: 15_000 };
}

const mine = (agent: AgentHandle, input: SendInput) => agent.log.userMessages.filter((m) => m.messageId === input.messageId);
const calls = (agent: AgentHandle, method: string) => agent.log.requests.filter((r) => r.method === method);

function failure(run: Run): ApplicationFailure {
  if (!(run.error instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(run.error ?? JSON.stringify(run.outcome))}`);
  return run.error;
}

const bindings: Binding[] = ['JSONRPC', 'HTTP+JSON'];

describe.each(bindings)('over %s', (binding) => {
  it('never resends a first message whose reply was lost when the agent refuses ListTasks (-31401): it returns unresolved', async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer({ streaming: false, preferredBinding: binding }));
    const input = firstMessage(agent, proxy.baseUrl);
    proxy.cutNext((body) => body.includes(input.messageId));
    const first = await attempt(input);
    expect(proxy.cut).toHaveLength(1);
    const f = failure(first);
    expect(f.type).toBe('ConnectionError');
    expect(f.nonRetryable).toBe(false);

    proxy.refuseListTasks();
    const retry = await attempt(input, { attempt: 2, heartbeatDetails: lastDetails(first) });
    expect(retry.error).toBeUndefined();
    expect(proxy.refused).toHaveLength(1);
    expect(retry.outcome?.observation).toBeUndefined();
    const reason = retry.outcome?.unresolved?.reason ?? '';
    expect(reason).toContain('code-reviewer');
    expect(reason).toContain('ListTasks');
    expect(reason).toMatch(/UNAUTHENTICATED/);
    expect(reason).toContain(input.messageId);
    expect(mine(agent, input)).toHaveLength(1);
  });

  it('streams the first message, heartbeats the task id from its first frame, and a retry reconciles with GetTask on it', async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer({ preferredBinding: binding }));
    const input = firstMessage(agent, proxy.baseUrl);
    proxy.cutStreamAfterFirstFrame((req) => req.body.includes(input.messageId));
    const first = await attempt(input);
    expect(proxy.cut).toHaveLength(1);
    expect(calls(agent, 'SendStreamingMessage')).toHaveLength(1);
    const taskId = first.beats.map((b) => taskIdIn(b.details)).find((id) => id !== undefined);
    expect(taskId).toBeDefined();
    expect(await agent.taskState(taskId!)).toBe('TASK_STATE_INPUT_REQUIRED');
    // The stream broke after the id was known: the attempt itself asks GetTask instead of failing.
    expect(first.error).toBeUndefined();
    expect(first.outcome?.observation).toMatchObject({ taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });

    // A worker that died right after that heartbeat: the retry gets the id back and asks the agent.
    proxy.refuseListTasks();
    const retry = await attempt(input, { attempt: 2, heartbeatDetails: lastDetails(first) });
    expect(retry.error).toBeUndefined();
    expect(retry.outcome?.reconciled).toBe(true);
    expect(retry.outcome?.observation).toMatchObject({ taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
    expect(calls(agent, 'GetTask').filter((r) => r.taskId === taskId).length).toBeGreaterThanOrEqual(1);
    expect(proxy.refused).toHaveLength(0);
    expect(mine(agent, input)).toHaveLength(1);
  });

  it("reads a streamed send until the task stops, like the blocking call: the deployer's AUTH_REQUIRED", async () => {
    const { agent, proxy } = await behindProxy(startDeployer({ preferredBinding: binding }));
    const run = await attempt(firstMessage(agent, proxy.baseUrl, DEPLOY));
    expect(run.error).toBeUndefined();
    expect(calls(agent, 'SendStreamingMessage')).toHaveLength(1);
    expect(run.outcome?.observation?.status).toMatchObject({ state: 'TASK_STATE_AUTH_REQUIRED', text: expect.stringContaining('/approve/') });
    expect(taskIdIn(lastDetails(run))).toBe(run.outcome?.observation?.taskId);
  });

  it('merges a streamed reply into one snapshot: status and artifacts of a task that completes at once', async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer({ questions: 0, preferredBinding: binding }));
    const run = await attempt(firstMessage(agent, proxy.baseUrl));
    expect(run.error).toBeUndefined();
    expect(calls(agent, 'SendStreamingMessage')).toHaveLength(1);
    const obs = run.outcome?.observation;
    expect(obs?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(obs?.artifacts).toHaveLength(1);
    expect(obs?.artifacts?.[0]).toMatchObject({ name: 'review.json', parts: [{ data: { baseBranch: 'main', verdict: 'approve' } }] });
  });
});

describe('reconciling a first message', () => {
  it('finds the earlier delivery with ListTasks when the agent allows it, and sends nothing', async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer({ streaming: false }));
    const input = firstMessage(agent, proxy.baseUrl);
    proxy.cutNext((body) => body.includes(input.messageId));
    const first = await attempt(input);
    expect(failure(first).type).toBe('ConnectionError');
    const retry = await attempt(input, { attempt: 2, heartbeatDetails: lastDetails(first) });
    expect(retry.outcome?.reconciled).toBe(true);
    expect(retry.outcome?.observation?.status?.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(mine(agent, input)).toHaveLength(1);
  });

  it('returns unresolved when the agent no longer knows the task it created for our message', async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer());
    const input = firstMessage(agent, proxy.baseUrl);
    const retry = await attempt(input, { attempt: 2, heartbeatDetails: { taskId: 'task-the-agent-forgot' } });
    expect(retry.error).toBeUndefined();
    expect(retry.outcome?.unresolved?.reason).toMatch(/task-the-agent-forgot/);
    expect(retry.outcome?.unresolved?.reason).toMatch(/TASK_NOT_FOUND|not found/i);
    expect(mine(agent, input)).toHaveLength(0);
  });

  it("resolution 'resend' sends again with the same messageId without reconciling", async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer({ streaming: false }));
    const input = firstMessage(agent, proxy.baseUrl);
    proxy.cutNext((body) => body.includes(input.messageId));
    await attempt(input);
    proxy.refuseListTasks();
    const unresolved = await attempt(input, { attempt: 2 });
    expect(unresolved.outcome?.unresolved).toBeDefined();

    // The operator chose to resend: a new activity, attempt 1, with the decision in its input.
    const resent = await attempt({ ...input, resolution: 'resend' });
    expect(resent.error).toBeUndefined();
    expect(resent.outcome?.observation?.status?.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(proxy.refused).toHaveLength(1);
    expect(calls(agent, 'GetTask')).toHaveLength(0);
    expect(mine(agent, input).map((m) => m.messageId)).toEqual([input.messageId, input.messageId]);
  });

  it('resolution adopt asks GetTask on that task and returns what it sees, sending nothing', async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer({ streaming: false }));
    const input = firstMessage(agent, proxy.baseUrl);
    proxy.cutNext((body) => body.includes(input.messageId));
    await attempt(input);
    // The operator looked the task up at the agent and adopts it.
    const sent = await attempt({ ...firstMessage(agent, agent.baseUrl) });
    const adoptTaskId = sent.outcome!.observation!.taskId;
    const before = mine(agent, input).length;
    const adopted = await attempt({ ...input, resolution: { adoptTaskId } }, { attempt: 1 });
    expect(adopted.error).toBeUndefined();
    expect(adopted.outcome?.reconciled).toBe(true);
    expect(adopted.outcome?.observation).toMatchObject({ taskId: adoptTaskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
    expect(mine(agent, input)).toHaveLength(before);
    expect(calls(agent, 'GetTask').map((r) => r.taskId)).toEqual([adoptTaskId]);
  });
});

describe('every call heartbeats, has its own deadline, and says who failed how', () => {
  it('heartbeats while the agent is slow on the reconcile call', async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer({ streaming: false }));
    const input = firstMessage(agent, proxy.baseUrl);
    proxy.delay((req) => req.method === 'ListTasks', 2_000);
    const run = await attempt(input, { attempt: 2, heartbeatTimeoutMs: 600 });
    expect(run.error).toBeUndefined();
    const held = proxy.delayed[0]!;
    expect(held.method).toBe('ListTasks');
    const during = run.beats.filter((b) => b.at >= held.at && b.at <= held.until);
    // Every heartbeatTimeout / 3 = 200 ms: about 10 during the 2 s hold; a timeout of 600 ms allows no gap that long.
    expect(during.length).toBeGreaterThanOrEqual(5);
    const gaps = run.beats.slice(1).map((b, i) => b.at - run.beats[i]!.at);
    expect(Math.max(...gaps)).toBeLessThan(600);
  });

  it('fails a reconcile call that never answers within the budget, naming the agent, the call and the cause', async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer({ streaming: false }));
    const input = firstMessage(agent, proxy.baseUrl);
    proxy.delay((req) => req.method === 'ListTasks', 60_000);
    const run = await attempt(input, { attempt: 2, startToCloseTimeoutMs: 4_000 });
    const f = failure(run);
    expect(run.ms).toBeLessThan(4_000);
    expect(f.type).toBe('TimeoutError');
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toContain('code-reviewer');
    expect(f.message).toContain('ListTasks');
    expect(f.message).toMatch(/timed out/);
    expect(mine(agent, input)).toHaveLength(0);
  }, 15_000);

  it('stops a slow reconcile call when the activity is cancelled, and sends nothing', async () => {
    const { agent, proxy } = await behindProxy(startCodeReviewer({ streaming: false }));
    const input = firstMessage(agent, proxy.baseUrl);
    proxy.delay((req) => req.method === 'ListTasks', 5_000);
    const run = await attempt(input, { attempt: 2 }, (env) => setTimeout(() => env.cancel(), 300));
    expect(run.error).toBeInstanceOf(CancelledFailure);
    expect(run.ms).toBeLessThan(2_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(mine(agent, input)).toHaveLength(0);
  }, 15_000);
});
