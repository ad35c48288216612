// What every fault runs on: its own Temporal dev server on a fixed port and SQLite file (so it can
// be stopped and started again), the planner's worker as a real process (worker/main.ts, so it can
// be SIGKILLed), the seed's agents, a client, and a bot that answers and approves when alerted.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, WorkflowFailedError, type Connection } from '@temporalio/client';
import { answerTask } from '../client/delegated-task';
import { startPlan } from '../client/plan';
import { payloadSettings, plannerDataConverter } from '../payloads/data-converter';
import { freePort, startDevServer, type DevServer } from '../deploy/dev/dev-server';
import { loadConfig } from '../runtime/config';
import { spawnWorker } from '../worker/child-process';
import { connectClient, temporalTarget } from '../runtime/temporal-connection';
import { plannerBundle } from '../worker/workflow-bundle';
import { startBot, type Bot } from '../bench/lib/bot';
import { whereItWaits } from './where-it-waits';

export type { Alert, Bot } from '../bench/lib/bot';

export const ROOT = join(__dirname, '..');
export const SEED_PLAN = join(ROOT, 'demo', 'plans', 'release.yaml');
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it gives a value; throws naming `what` after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, ms: number, every = 100): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`chaos: no ${what} within ${ms} ms${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(every);
  }
}

/** A promise that rejects after `ms`, naming what did not happen. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`chaos: ${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

// --- The worker process -----------------------------------------------------------------------

export interface WorkerProcess {
  pid: number;
  kill(signal: NodeJS.Signals): Promise<void>;
}

// --- The environment --------------------------------------------------------------------------

export interface ChaosEnv {
  dir: string;
  server: DevServer;
  client: Client;
  bot: Bot;
  queue: string;
  log: (line: string) => void;
  /** Starts worker/main.ts on the queue; resolves once it says it runs. */
  startWorker(): Promise<WorkerProcess>;
  /** Stops the dev server (SIGTERM) and starts it again on the same port and SQLite file. */
  restartServer(downMs: number): Promise<{ downMs: number; servingAfterMs: number }>;
  /** Starts the seed plan (demo/plans/release.yaml) against these agent URLs. */
  startSeedPlan(planId: string, urls: { reviewer: string; deployer: string }): Promise<void>;
  /** A workflow's (a plan's, a step's) result, or the innermost typed failure it ended with. */
  planOutcome(workflowId: string, ms: number): Promise<{ ok: true } | { ok: false; type: string; message: string }>;
  /** Answers a step's question, retrying through worker and server restarts until it lands (bounded). */
  answer(workflowId: string, ms?: number): Promise<void>;
  close(): Promise<void>;
}

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m), log() {} };

export async function startChaosEnv(opts: { log: (line: string) => void; bundle?: string }): Promise<ChaosEnv> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-planner-chaos-'));
  const dbFile = join(dir, 'temporal.sqlite');
  const logFile = join(dir, 'temporal.log');
  const port = await freePort();
  let server = await startDevServer({ dbFile, port, uiPort: false, logFile, log: opts.log });
  const cleanup: Array<() => Promise<void>> = [async () => server.stop()];
  try {
    let bundle = opts.bundle;
    if (!bundle || !existsSync(bundle)) {
      bundle = join(dir, 'bundle.js');
      writeFileSync(bundle, (await plannerBundle(quiet)).code);
    }
    const blobDir = join(dir, 'blobs');
    const connection: Connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default' }, {}));
    cleanup.unshift(() => connection.close());
    const client = new Client({ connection, namespace: 'default', dataConverter: plannerDataConverter(payloadSettings(loadConfig({ PLANNER_BLOB_DIR: blobDir }))) });
    const bot = await startBot();
    cleanup.unshift(() => bot.close());
    const queue = 'chaos';
    const workers = new Set<ChildProcess>();

    const startWorker = async (): Promise<WorkerProcess> => {
      const w = await spawnWorker({
        ...process.env,
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_NAMESPACE: 'default',
        PLANNER_TASK_QUEUE: queue,
        PLANNER_WORKFLOW_BUNDLE: bundle,
        PLANNER_BLOB_DIR: blobDir,
        PLANNER_LOG_LEVEL: 'info',
        PLANNER_ALERT_SINKS: 'webhook',
        PLANNER_ALERT_WEBHOOK_URL: bot.url,
      });
      const { child } = w;
      workers.add(child);
      child.once('exit', () => workers.delete(child));
      // Keep draining its output so a full pipe never blocks it.
      child.stdout!.removeAllListeners('data');
      child.stderr!.removeAllListeners('data');
      child.stdout!.resume();
      child.stderr!.resume();
      return { pid: w.pid, kill: (signal) => w.stop(signal) };
    };
    cleanup.unshift(async () => {
      for (const w of workers) w.kill('SIGKILL');
    });

    const env: ChaosEnv = {
      dir,
      get server() {
        return server;
      },
      client,
      bot,
      queue,
      log: opts.log,
      startWorker,
      async restartServer(downMs) {
        const t0 = Date.now();
        await server.stop();
        const stopped = Date.now();
        await sleep(downMs);
        server = await startDevServer({ dbFile, port, uiPort: false, logFile, log: opts.log });
        return { downMs: Date.now() - stopped, servingAfterMs: Date.now() - t0 };
      },
      async startSeedPlan(planId, urls) {
        await startPlan(client, { planFile: SEED_PLAN }, { planId, agentUrls: { 'code-reviewer': urls.reviewer, deployer: urls.deployer } }, { taskQueue: queue });
      },
      async planOutcome(workflowId, ms) {
        const deadline = Date.now() + ms;
        for (;;) {
          try {
            await within(client.workflow.getHandle(workflowId).result(), Math.max(1, deadline - Date.now()), `the end of ${workflowId}`);
            return { ok: true };
          } catch (err) {
            // A long poll cut by a restarting server says nothing about the plan: ask again.
            if (!(err instanceof WorkflowFailedError) && Date.now() < deadline && !String(err).includes('did not happen within')) {
              await sleep(1000);
              continue;
            }
            const typed = innermostTyped(err);
            // Out of time: say what it waits on, so that the fault's report names the hang.
            const waits = err instanceof WorkflowFailedError ? '' : `; it waits: ${await whereItWaits(client, workflowId)}`;
            return { ok: false, type: typed?.type ?? (err instanceof Error ? err.name : 'unknown'), message: (typed?.message ?? String(err)) + waits };
          }
        }
      },
      async answer(workflowId, ms = 120_000) {
        await until(
          `an accepted answer to ${workflowId}`,
          async () => {
            try {
              await within(answerTask(client, workflowId, { text: 'main' }), 15_000, `the answer to ${workflowId}`);
              return true;
            } catch (err) {
              // Accepted by an earlier try whose reply was lost: the step no longer waits.
              if (/not waiting|no question|already/i.test(String(err))) return true;
              throw err;
            }
          },
          ms,
          1000,
        );
      },
      async close() {
        for (const c of cleanup) await c().catch(() => undefined);
        await sleep(100);
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return env;
  } catch (err) {
    for (const c of cleanup) await c().catch(() => undefined);
    throw err;
  }
}

/** The innermost failure in a chain that has an ApplicationFailure type (RemoteTaskLost, ...). */
function innermostTyped(err: unknown): { type: string; message: string } | undefined {
  let found: { type: string; message: string } | undefined;
  for (let e: unknown = err, depth = 0; e && depth < 10; depth++) {
    const t = (e as { type?: unknown }).type;
    if (typeof t === 'string' && t) found = { type: t, message: (e as Error).message };
    e = (e as { cause?: unknown }).cause;
  }
  return found;
}
