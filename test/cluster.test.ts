// The planner on a production-shaped cluster (`planner cluster up`): PostgreSQL, Temporal's four
// services as separate processes, two planner workers. The seed plan completes on it; then, while
// one plan waits on a human and another on an operator, a worker is SIGKILLed, the history
// service is SIGKILLed and restarted, and PostgreSQL is restarted: every plan completes once the
// part is back, the agents see no duplicate message, and the inbox lists every wait throughout
// (or says clearly that Temporal is unavailable). Binaries come from the user cache
// (scripts/test.sh builds them before jest); the cluster lives in a temp folder on free ports.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { findServerBinaries } from '../deploy/cluster/binaries';
import { clusterDown } from '../deploy/cluster/down';
import { postgresPaths, restartPostgres } from '../deploy/cluster/postgres';
import { DEFAULT_PORTS, NAMESPACE, type ClusterPorts } from '../deploy/cluster/settings';
import { isOurs, resolveOptions, writeState, type ProcessRecord } from '../deploy/cluster/state';
import { clusterStatus } from '../deploy/cluster/status';
import { clusterUp, restartTemporalService, startWorker, type ClusterHandle } from '../deploy/cluster/up';
import { listInbox, type InboxEntry } from '../client/inbox';
import { answerStep, describePlan, startPlan } from '../client/plan';
import { plannerDataConverter, payloadSettings } from '../payloads/data-converter';
import { loadConfig } from '../runtime/config';
import { connectClient, temporalTarget, temporalUnavailable } from '../runtime/temporal-connection';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { replayAll } from './support/delegated';
import { planDoc, step, waitForPlan, type PlanHandle } from './support/plans';
import { eventually } from './support/wait';

jest.setTimeout(240_000);

const dir = mkdtempSync(join(tmpdir(), 'a2a-planner-cluster-'));
const blobDir = join(dir, 'blobs');
let cluster: ClusterHandle;
let client: Client;
let reviewer: AgentHandle;
let deployer: AgentHandle;
const started: string[] = [];
/** Kept for the reader when start-up failed or PLANNER_KEEP_CLUSTER_LOGS is set. */
let failed = Boolean(process.env.PLANNER_KEEP_CLUSTER_LOGS);
const log = (line: string): void => void process.stderr.write(`[cluster] ${line}\n`);

/**
 * A failing test's error carries the end of every process log of the cluster: CI shows the error,
 * not the folder, and a wait that timed out says nothing of why the workers did not answer.
 */
function withClusterLogs(body: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await body();
    } catch (err) {
      failed = true;
      const tails = (cluster?.state.processes ?? []).map((p) => {
        let text = '';
        try {
          text = readFileSync(p.log, 'utf8');
        } catch {
          text = '(no log)';
        }
        return `--- ${p.name} (pid ${p.pid}${isOurs(p) ? '' : ', gone'}), ${p.log}, last lines ---\n${text.trimEnd().split('\n').slice(-12).join('\n')}`;
      });
      if (err instanceof Error) err.message += `\n${tails.join('\n')}`;
      throw err;
    }
  };
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A block of ports shaped like DEFAULT_PORTS, shifted to a free range (every derived port checked). */
async function freePorts(): Promise<ClusterPorts> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Membership ports (gRPC + 100) must stay below 32768: the membership table keeps them as smallint.
    const shift = -7_000 + Math.floor(Math.random() * 1_900) * 10;
    const ports = Object.fromEntries(Object.entries(DEFAULT_PORTS).map(([k, v]) => [k, v + shift])) as unknown as ClusterPorts;
    const all = [...Object.values(ports), ...[ports.frontend, ports.history, ports.matching, ports.worker].map((p) => p + 100), ...[1, 2, 3].map((i) => ports.serverMetrics + i), ports.workerMetrics + 1, ports.workerMetrics + 2, ports.serve + 1];
    if ((await Promise.all(all.map(portFree))).every(Boolean)) return ports;
  }
  throw new Error('no free block of ports');
}

beforeAll(async () => {
  if (!findServerBinaries()) throw new Error('the Temporal server binaries are not in the user cache: `npm test` (scripts/test.sh) builds them before jest');
  chmodSync(dir, 0o755); // PostgreSQL runs as another user when we are root: it must reach its folder
  const t0 = Date.now();
  try {
    // The seed plan's file names the demo agents' ports; the test's agents run elsewhere, so the API
    // call overrides their URLs (agentUrls), which callers may do only with PLANNER_CALLER_AGENTS=any.
    cluster = await clusterUp({ dir, workers: 2, servers: 2, ui: false, ports: await freePorts(), log, env: { ...process.env, PLANNER_BLOB_DIR: blobDir, PLANNER_LOG_LEVEL: 'info', PLANNER_CALLER_AGENTS: 'any' } });
  } catch (e) {
    failed = true;
    throw e;
  }
  log(`up in ${Date.now() - t0} ms`);
  const connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: cluster.state.frontend, TEMPORAL_NAMESPACE: NAMESPACE }, {}));
  client = new Client({ connection, namespace: NAMESPACE, dataConverter: plannerDataConverter(payloadSettings(loadConfig({ PLANNER_BLOB_DIR: blobDir }))) });
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
}, 420_000);

afterAll(async () => {
  await client?.connection.close();
  await Promise.all([reviewer?.close(), deployer?.close()]);
  // Whatever happened, stop what the state file records (a half-started cluster too).
  await clusterDown({ dir, log });
  // Keep the logs of a failed run for the reader.
  if (failed) log(`cluster logs kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}, 180_000);

const proc = (name: string): ProcessRecord => {
  const p = cluster.state.processes.find((x) => x.name === name);
  if (!p) throw new Error(`no ${name} in the cluster`);
  return p;
};
const messagesTo = (agent: AgentHandle, planId: string) => agent.log.userMessages.filter((m) => m.messageId.startsWith(`${planId}.`));

async function run(doc: unknown, planId: string): Promise<PlanHandle> {
  const { handle } = await startPlan(client, { plan: doc }, { planId }, { taskQueue: 'planner' });
  started.push(planId);
  return handle;
}

/** The inbox, or the sentence saying Temporal is unavailable: never a hang, never a wrong list. */
async function inboxNow(planIds: string[]): Promise<{ entries?: InboxEntry[]; unavailable?: string }> {
  try {
    const entries = await client.withDeadline(Date.now() + 10_000, () => listInbox(client));
    return { entries: entries.filter((e) => e.planId !== undefined && planIds.includes(e.planId)) };
  } catch (e) {
    const unavailable = temporalUnavailable(e, cluster.state.frontend);
    if (!unavailable) throw e;
    return { unavailable };
  }
}

/** While `during` runs, the inbox is asked every 500 ms; every answer must list both waits or say Temporal is unavailable. */
async function inboxThroughout<T>(planIds: string[], during: () => Promise<T>): Promise<{ result: T; lists: number; unavailable: number }> {
  let stop = false;
  let lists = 0;
  let unavailable = 0;
  const problems: string[] = [];
  const watcher = (async () => {
    while (!stop) {
      const r = await inboxNow(planIds).catch((e: unknown) => ({ error: String(e) }));
      if ('error' in r) problems.push(r.error);
      else if (r.unavailable) unavailable++;
      else if (r.entries && r.entries.length === planIds.length) lists++;
      else problems.push(`the inbox listed ${r.entries?.map((e) => e.planId).join(', ') || 'nothing'} of ${planIds.join(', ')}`);
      await new Promise((res) => setTimeout(res, 500));
    }
  })();
  try {
    const result = await during();
    return { result, lists, unavailable };
  } finally {
    stop = true;
    await watcher;
    expect(problems).toEqual([]);
  }
}

/** A call to `planner serve` replica i (bearer token from the cluster folder). */
async function api(i: number, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${cluster.state.ports.serve + i}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${readFileSync(join(dir, 'api-token'), 'utf8').trim()}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('the seed plan on the cluster (two workers, two planner serve replicas)', () => {
  it('is started through one replica, answered through the other, approved out of band, completes', withClusterLogs(async () => {
    const started0 = await api(0, 'POST', '/plans', { planFile: 'release.yaml', agentUrls: { 'code-reviewer': reviewer.baseUrl, deployer: deployer.baseUrl } });
    expect(started0.status).toBe(201);
    const planId = started0.json.planId as string;
    const handle: PlanHandle = client.workflow.getHandle(planId);
    started.push(planId);
    await waitForPlan(handle, (s) => step(s, 'review').waitingOn === 'human', 'the review question', 60_000);
    // The inbox, from SQL advanced visibility on PostgreSQL.
    const entry = await eventually(async () => (await listInbox(client, { planId })).find((e) => e.stepId === 'review' && e.waitingOn === 'human'), 'the inbox entry', 30_000);
    expect(entry).toMatchObject({ planId, waitingOn: 'human' });
    const inbox1 = await api(1, 'GET', `/inbox?planId=${planId}`);
    expect(inbox1.status).toBe(200);
    expect(JSON.stringify(inbox1.json)).toContain(`${planId}.review`);
    const answered = await api(1, 'POST', `/plans/${planId}/steps/review/answer`, { text: 'main' });
    expect(answered.status).toBe(200);
    const approval = await waitForPlan(handle, (s) => step(s, 'deploy').waitingOn === 'operator', 'the approval request', 60_000);
    await eventually(async () => (await listInbox(client, { planId })).find((e) => e.stepId === 'deploy' && e.waitingOn === 'operator'), 'the approval in the inbox', 30_000);
    await deployer.approve(step(approval, 'deploy').taskId!); // out of band: at the deployer, not through the planner
    const result = await handle.result();
    expect(result.steps.map((s) => [s.id, s.state])).toEqual([
      ['review', 'completed'],
      ['deploy', 'completed'],
    ]);
    expect(messagesTo(reviewer, planId)).toHaveLength(2);
    expect(messagesTo(deployer, planId)).toHaveLength(1);
    started.push(`${planId}.review`, `${planId}.deploy`);
  }));
});

describe('faults while one plan waits on a human and another on an operator', () => {
  it('survives a SIGKILLed worker, a SIGKILLed and restarted history service and a PostgreSQL restart', withClusterLogs(async () => {
    const stamp = Date.now();
    const human = await run(planDoc('asks', { 'code-reviewer': reviewer.baseUrl }, [{ id: 'review', agent: 'code-reviewer', text: 'Please review this diff:\n+const refund = amount > 0;' }]), `asks-${stamp}`);
    const operator = await run(planDoc('approves', { deployer: deployer.baseUrl }, [{ id: 'deploy', agent: 'deployer', text: 'Deploy build 2026.10.06-1 to staging', watch: { heartbeatTimeout: '5s', firstHeartbeatTimeout: '5s' } }]), `approves-${stamp}`);
    const ids = [human.workflowId, operator.workflowId];
    await waitForPlan(human, (s) => step(s, 'review').waitingOn === 'human', 'the question', 60_000);
    const waiting = await waitForPlan(operator, (s) => step(s, 'deploy').waitingOn === 'operator', 'the approval', 60_000);
    await eventually(async () => ((await inboxNow(ids)).entries?.length === 2 ? true : undefined), 'both waits in the inbox', 30_000);

    // 1. SIGKILL one worker; the other carries on; then it comes back.
    const killed = proc('worker-0');
    const r1 = await inboxThroughout(ids, async () => {
      process.kill(killed.pid, 'SIGKILL');
      await eventually(async () => (isOurs(killed) ? undefined : true), 'worker-0 gone');
      await new Promise((r) => setTimeout(r, 2000));
    });
    expect(r1.lists).toBeGreaterThan(0);

    // 2. SIGKILL the history service, wait, restart it.
    const history = proc('temporal-history');
    const r2 = await inboxThroughout(ids, async () => {
      process.kill(history.pid, 'SIGKILL');
      await eventually(async () => (isOurs(history) ? undefined : true), 'history gone');
      await new Promise((r) => setTimeout(r, 3000));
      const rec = restartTemporalService(cluster, 'history');
      log(`history restarted: pid ${rec.pid}`);
      await new Promise((r) => setTimeout(r, 5000));
    });
    log(`inbox during the history outage: ${r2.lists} lists, ${r2.unavailable} unavailable`);

    // 3. Restart PostgreSQL (fast shutdown: every connection cut).
    const r3 = await inboxThroughout(ids, async () => {
      const pid = await restartPostgres(postgresPaths(dir));
      cluster.state.postgres.pid = pid;
      writeState(cluster.state);
      await new Promise((r) => setTimeout(r, 3000));
    });
    log(`inbox during the PostgreSQL restart: ${r3.lists} lists, ${r3.unavailable} unavailable`);

    // worker-0 back (its replacement), then everything answers again.
    const o = resolveOptions({ dir, ports: cluster.state.ports, log });
    const record = (p: ProcessRecord): ProcessRecord => {
      cluster.state.processes = [...cluster.state.processes.filter((x) => x.name !== p.name), p];
      writeState(cluster.state);
      return p;
    };
    await startWorker(o, cluster.state, record, { ...process.env, ...workerEnvOf(killed) }, 0);
    const status = await eventually(async () => {
      const s = await clusterStatus({ dir, log: () => undefined });
      return s.up ? s : undefined;
    }, 'the cluster answering again', 60_000);
    expect(status.parts.map((p) => p.name)).toEqual(expect.arrayContaining(['postgres', 'temporal-history', 'temporal-frontend', 'worker-0', 'worker-1']));

    // Both waits are still there and still work: answer the question, approve the deploy.
    await eventually(async () => ((await inboxNow(ids)).entries?.length === 2 ? true : undefined), 'both waits in the inbox after the faults', 60_000);
    await eventually(() => answerStep(client, human.workflowId, 'review', { text: 'main' }).then(() => true), 'the answer accepted', 60_000);
    await deployer.approve(step(waiting, 'deploy').taskId!);
    const [h, op] = await Promise.all([human.result(), operator.result()]);
    expect(h.state).toBe('completed');
    expect(op.state).toBe('completed');
    // No duplicate message reached an agent: the diff and the answer; the one deploy request.
    expect(messagesTo(reviewer, human.workflowId)).toHaveLength(2);
    expect(new Set(messagesTo(reviewer, human.workflowId).map((m) => m.messageId)).size).toBe(2);
    expect(messagesTo(deployer, operator.workflowId)).toHaveLength(1);
    const snapshot = await describePlan(client, human.workflowId);
    expect(snapshot.workflowStatus).toBe('COMPLETED');
    started.push(`${human.workflowId}.review`, `${operator.workflowId}.deploy`);
  }));
});

/** The environment a recorded worker was started with is not kept; a replacement gets the cluster's. */
function workerEnvOf(_rec: ProcessRecord): Record<string, string> {
  const frontend = cluster.state.frontend;
  return { TEMPORAL_ADDRESS: frontend, TEMPORAL_NAMESPACE: NAMESPACE, PLANNER_TASK_QUEUE: 'planner', PLANNER_BLOB_DIR: blobDir, PLANNER_WORKFLOW_BUNDLE: join(dir, 'workflow-bundle.js'), PLANNER_LOG_LEVEL: 'info' };
}

it('replays every history of the cluster suite without nondeterminism', async () => {
  expect(started.length).toBeGreaterThan(0);
  const { replayed, errors } = await replayAll(client, started);
  expect(errors).toEqual([]);
  expect(replayed).toBe(started.length);
});

it('down stops everything it started, and nothing else', async () => {
  const pids = cluster.state.processes.filter(isOurs).map((p) => p.pid);
  expect(pids.length).toBeGreaterThanOrEqual(6);
  await client.connection.close();
  const { stopped } = await clusterDown({ dir, log });
  expect(stopped.length).toBe(pids.length + 1); // and PostgreSQL
  for (const p of cluster.state.processes) expect(isOurs(p)).toBe(false);
  const status = await clusterStatus({ dir, log: () => undefined });
  expect(status.up).toBe(false);
  cluster = undefined as unknown as ClusterHandle;
  client = undefined as unknown as Client;
});
