// Issue 19 item 2 on the real dev server: an agent whose FAILED status holds a megabyte of
// whitespace once made every workflow task time out in the sandbox (quadratic regexes on the
// failure's text) and aborted the worker process ("async hook stack has become corrupted"). The
// worker runs as a child process here, so that a dead worker is a failed assertion, not a dead jest.
// Also a plan whose step text is built to hit the old cubic template regex.
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { startPlan } from '../client/plan';
import { planStatusQuery } from '../workflows/plan/messages';
import { startHostileAgent, type HostileAgent } from './a2a/hostile-agent';
import { EXPORT_ARTIFACT, startExporter, type AgentHandle } from './agents';
import { connectClient, startChildWorker, uniqueQueue, type ChildWorker } from './harness/planner';
import { planDoc, step } from './support/plans';
import { replayAll } from './support/delegated';

const MiB = 1024 * 1024;
/** What a person reads of the failure: bounded, whatever the agent sent. */
const REASON_BOUND = 2_000;

const queue = uniqueQueue('trust-hostile');
let client: Client;
let hostile: HostileAgent;
let exporter: AgentHandle;
let worker: ChildWorker;
const started: string[] = [];

beforeAll(async () => {
  client = await connectClient();
  hostile = await startHostileAgent();
  // A blocking SendMessage: the FAILED task comes back as its reply.
  hostile.setCard({ ...hostile.card, capabilities: { streaming: false, pushNotifications: false } });
  hostile.setMode('failed-status');
  exporter = await startExporter();
  worker = await startChildWorker(queue);
}, 90_000);

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await Promise.all([hostile?.close(), exporter?.close()]);
  await client?.connection.close();
});

function alive(w: ChildWorker): boolean {
  return w.child.exitCode === null && w.child.signalCode === null;
}

/** `p`, unless the worker dies first: then a failure with how it died and its last words. */
function whileWorkerLives<T>(p: Promise<T>): Promise<T> {
  let output = '';
  const onData = (b: Buffer): void => void (output = (output + b.toString()).slice(-4_000));
  worker.child.stdout?.on('data', onData);
  worker.child.stderr?.on('data', onData);
  const died = new Promise<never>((_, reject) => {
    const onExit = (code: number | null, signal: string | null): void =>
      reject(new Error(`the worker died (exit ${code}, signal ${signal}):\n${output}`));
    if (!alive(worker)) onExit(worker.child.exitCode, worker.child.signalCode);
    worker.child.once('exit', onExit);
    void p.finally(() => worker.child.off('exit', onExit)).catch(() => undefined);
  });
  return Promise.race([p, died]).finally(() => {
    worker.child.stdout?.off('data', onData);
    worker.child.stderr?.off('data', onData);
  });
}

async function runPlan(planId: string, doc: unknown): Promise<ReturnType<Client['workflow']['getHandle']>> {
  const { handle } = await startPlan(client, { plan: doc }, { planId }, { taskQueue: queue });
  started.push(planId);
  return handle;
}

async function exportPlan(planId: string): Promise<void> {
  const handle = await runPlan(planId, planDoc('export', { exporter: exporter.baseUrl }, [{ id: 'export', agent: 'exporter', text: 'export everything' }]));
  await whileWorkerLives(handle.result());
  const s = await handle.query(planStatusQuery);
  expect(step(s, 'export').artifacts).toEqual([EXPORT_ARTIFACT]);
  started.push(`${planId}.export`);
}

describe.each([
  ['a megabyte of spaces', ' '.repeat(MiB)],
  ['a megabyte of mixed whitespace and line breaks', ' \t\r'.repeat(MiB / 6) + '\n'.repeat(MiB / 2)],
  ['a megabyte of "{{ " runs', '{{ '.repeat(MiB / 3)],
])('a FAILED status whose text is %s', (label, text) => {
  it('fails the step with a bounded reason; the worker stays up and another plan on it completes', async () => {
    hostile.setStatusText(text);
    const planId = `trust-failed-${label.replace(/\W+/g, '-')}-${Date.now()}`;
    const handle = await runPlan(planId, planDoc('whitespace', { hostile: hostile.baseUrl }, [{ id: 'fail', agent: 'hostile', text: 'fail, please' }]));
    const err = await whileWorkerLives(handle.result()).then(
      () => undefined,
      (e: unknown) => e,
    );
    started.push(`${planId}.fail`);
    if (!(err instanceof WorkflowFailedError)) throw err;
    const s = await handle.query(planStatusQuery);
    const failed = step(s, 'fail');
    expect(failed.state).toBe('failed');
    expect(failed.reason).toMatch(/RemoteTaskFailed/);
    expect(failed.reason!.length).toBeLessThan(REASON_BOUND);
    expect(alive(worker)).toBe(true);
    await exportPlan(`${planId}-then-export`);
    expect(alive(worker)).toBe(true);
  }, 120_000);
});

// 50,000 characters: the agent's HTTP server refuses bodies over 100 KB; the old regex needed 4.4 s for 2 KB.
it('runs a plan whose step text is built to hit the template (open "{{", spaces, no closing braces)', async () => {
  const text = `{{${' '.repeat(40_000)}x{{ ${'{'.repeat(1000)} steps.a.text ${' '.repeat(8_000)}`;
  const planId = `trust-template-${Date.now()}`;
  const begun = Date.now();
  const handle = await runPlan(planId, planDoc('template', { exporter: exporter.baseUrl }, [{ id: 'export', agent: 'exporter', text }]));
  expect(Date.now() - begun).toBeLessThan(5_000);
  await whileWorkerLives(handle.result());
  started.push(`${planId}.export`);
  expect(alive(worker)).toBe(true);
  const sent = exporter.log.userMessages.find((m) => m.messageId.startsWith(`${planId}.`));
  expect(sent?.text).toBe(text);
}, 120_000);

it('replays every history of this suite without nondeterminism', async () => {
  const { replayed, errors } = await replayAll(client, started);
  expect(errors).toEqual([]);
  expect(replayed).toBe(started.length);
}, 120_000);
