// What workflow suites need: a client on the run's dev server, and the planner's workers on a task
// queue of the suite's own, in-process or in a child process that a test can SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import pino from 'pino';
import { payloadSettings, plannerDataConverter } from '../../payloads/data-converter';
import { installRuntime } from '../../worker/logger';
import { loadConfig, type PlannerConfig } from '../../worker/config';
import { connectClient as connect, temporalTarget } from '../../worker/temporal-connection';
import { createPlannerWorkers, type PlannerWorkers } from '../../worker/workers';

const ROOT = join(__dirname, '..', '..');

export function testEnv(): { address: string; namespace: string; bundle: string; blobDir: string } {
  const address = process.env.TEMPORAL_ADDRESS;
  const bundle = process.env.PLANNER_WORKFLOW_BUNDLE;
  const dir = process.env.PLANNER_TEST_DIR;
  if (!address || !bundle || !dir) throw new Error('jest globalSetup did not run: no TEMPORAL_ADDRESS / PLANNER_WORKFLOW_BUNDLE / PLANNER_TEST_DIR');
  // One blob store per jest run, outside the repository, shared by every worker, client and CLI of the run.
  return { address, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default', bundle, blobDir: join(dir, 'blobs') };
}

/** The data converter every client and replay of the run uses: the claim-check codec on the run's blob store. */
export function testDataConverter(): ReturnType<typeof plannerDataConverter> {
  return plannerDataConverter(payloadSettings(loadConfig({ PLANNER_BLOB_DIR: testEnv().blobDir })));
}

export async function connectClient(): Promise<Client> {
  const { address, namespace } = testEnv();
  const connection = await connect(temporalTarget({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace }, { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace }));
  return new Client({ connection, namespace, dataConverter: testDataConverter() });
}

export const uniqueQueue = (suite: string): string => `${suite}-${randomUUID().slice(0, 8)}`;

export function plannerEnv(taskQueue: string, extra: Record<string, string> = {}): Record<string, string> {
  const { address, namespace, bundle, blobDir } = testEnv();
  return {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    PLANNER_TASK_QUEUE: taskQueue,
    PLANNER_WORKFLOW_BUNDLE: bundle,
    PLANNER_BLOB_DIR: blobDir,
    PLANNER_LOG_LEVEL: 'warn',
    ...extra,
  };
}

export interface RunningWorkers {
  stop(): Promise<void>;
}

/** The planner's workers in this process. */
export async function startWorkers(taskQueue: string, extra: Record<string, string> = {}): Promise<RunningWorkers> {
  const config: PlannerConfig = loadConfig(plannerEnv(taskQueue, extra));
  const logger = pino({ level: 'error' });
  installRuntime(logger);
  const planner: PlannerWorkers = await createPlannerWorkers(config, logger, { env: plannerEnv(taskQueue, extra) });
  const running = planner.run();
  return {
    async stop() {
      planner.shutdown();
      await running;
    },
  };
}

export interface ChildWorker {
  child: ChildProcess;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** The real worker entry (worker/main.ts) in a child process, ready once it says so. */
export async function startChildWorker(taskQueue: string, extra: Record<string, string> = {}): Promise<ChildWorker> {
  // node itself (not the tsx CLI, which would sit between us and the worker and outlive a SIGKILL).
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(ROOT, 'worker', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...plannerEnv(taskQueue, { PLANNER_LOG_LEVEL: 'info', ...extra }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never leave a half-started worker behind
      reject(new Error(`child worker did not start in 60 s:\n${out}`));
    }, 60_000);
    const onData = (b: Buffer): void => {
      out = (out + b.toString()).slice(-65_536);
      if (out.includes('worker running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child worker exited with ${code}:\n${out}`));
    });
  });
  return {
    child,
    output: () => out,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
