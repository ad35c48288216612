// What workflow suites need: a client on the run's dev server, and the planner's workers on a task
// queue of the suite's own, in-process or in a child process that a test can SIGKILL.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import pino from 'pino';
import { payloadSettings, plannerDataConverter } from '../../payloads/data-converter';
import { installRuntime } from '../../runtime/logger';
import { loadConfig, type PlannerConfig } from '../../runtime/config';
import { connectClient as connect, temporalTarget } from '../../runtime/temporal-connection';
import { createPlannerWorkers, type PlannerWorkers } from '../../worker/workers';
import { spawnWorker } from '../../worker/child-process';

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
  const worker = await spawnWorker({ ...process.env, ...plannerEnv(taskQueue, { PLANNER_LOG_LEVEL: 'info', ...extra }) });
  return { child: worker.child, output: worker.output, kill: (signal) => worker.stop(signal) };
}
