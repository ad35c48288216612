// Shared steps of the delegated-task suites.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { startDelegatedTask } from '../../client/delegated-task';
import type { DelegatedTaskInput } from '../../workflows/delegated-task/input';
import { statusQuery, type DelegatedTaskStatus } from '../../workflows/delegated-task/messages';
import type { DelegatedTaskWorkflow } from '../../workflows/delegated-task/workflow';
import { testDataConverter, testEnv } from '../harness/planner';
import { eventually } from './wait';
import { tracingSinks } from '../../runtime/temporal-tracing';

export type TaskHandle = WorkflowHandle<typeof DelegatedTaskWorkflow>;

export function start(client: Client, taskQueue: string, input: DelegatedTaskInput, workflowId?: string): Promise<TaskHandle> {
  return startDelegatedTask(client, input, { taskQueue, workflowId });
}

export function waitForStatus(
  handle: TaskHandle,
  pred: (s: DelegatedTaskStatus) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<DelegatedTaskStatus> {
  return eventually(async () => {
    const s = await handle.query(statusQuery);
    return pred(s) ? s : undefined;
  }, what, timeoutMs);
}

/** Replays every closed run of these workflows; returns the errors found (none expected). */
export async function replayAll(client: Client, workflowIds: string[]): Promise<{ replayed: number; errors: string[] }> {
  const histories = workflowIds.map(async (workflowId) => ({
    workflowId,
    history: await client.workflow.getHandle(workflowId).fetchHistory(),
  }));
  const errors: string[] = [];
  let replayed = 0;
  const source = (async function* () {
    for (const h of histories) yield await h;
  })();
  // A traced workflow's spans leave through the `exporter` sink, which a replay never calls but must know.
  for await (const r of Worker.runReplayHistories({ workflowBundle: { codePath: testEnv().bundle }, dataConverter: testDataConverter(), sinks: tracingSinks(undefined) }, source)) {
    replayed++;
    if (r.error) errors.push(`${r.workflowId}: ${String(r.error)}`);
  }
  return { replayed, errors };
}

export const DIFF = 'Please review this diff of payments-api:\n+const retries = 3;';
export const DEPLOY = 'Deploy build 2026.10.06-1 to staging';

export { chainHistories, eventTypes } from '../../client/history';
