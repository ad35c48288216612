// The frame every delegated-task suite shares: a client on the run's dev server, an alert sink,
// the planner's workers on a queue of the suite's own, and a record of the workflows it started
// so that their histories can be replayed at the end.
import type { Client } from '@temporalio/client';
import { connectClient, startWorkers, uniqueQueue, type RunningWorkers } from '../harness/planner';
import { startAlertSink, type AlertSink } from './alert-sink';
import { replayAll, start, type TaskHandle } from './delegated';
import type { DelegatedTaskInput } from '../../workflows/delegated-task/input';

export interface Suite {
  client: Client;
  sink: AlertSink;
  queue: string;
  /** Starts a delegated task on the suite's queue (and remembers it for the replay check). */
  start(input: DelegatedTaskInput, workflowId?: string): Promise<TaskHandle>;
  /** Remembers a workflow started some other way. */
  track(...workflowIds: string[]): void;
  started: string[];
}

/** Registers beforeAll/afterAll hooks; `env` adds worker configuration (alerts go to the sink by default). */
export function plannerSuite(
  name: string,
  env: (s: Suite) => Record<string, string> | Promise<Record<string, string>> = () => ({}),
  opts: { workers?: boolean } = {},
): Suite {
  let workers: RunningWorkers | undefined;
  const suite = {
    queue: uniqueQueue(name),
    started: [] as string[],
    start: async (input: DelegatedTaskInput, workflowId?: string) => {
      const handle = await start(suite.client, suite.queue, input, workflowId);
      suite.started.push(handle.workflowId);
      return handle;
    },
    track: (...ids: string[]) => void suite.started.push(...ids),
  } as Omit<Suite, 'client' | 'sink'> as Suite;
  beforeAll(async () => {
    suite.client = await connectClient();
    suite.sink = await startAlertSink();
    const extra = { PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: suite.sink.url, ...(await env(suite)) };
    if (opts.workers !== false) workers = await startWorkers(suite.queue, extra);
  });
  afterAll(async () => {
    await workers?.stop();
    await suite.sink?.close();
    await suite.client?.connection.close();
  });
  return suite;
}

/** Declare last in a file: replays the histories of every workflow the suite started. */
export function itReplaysItsHistories(suite: Suite): void {
  it('replays every history of this suite without nondeterminism', async () => {
    expect(suite.started.length).toBeGreaterThan(0);
    const { replayed, errors } = await replayAll(suite.client, suite.started);
    expect(errors).toEqual([]);
    expect(replayed).toBe(suite.started.length);
  });
}
