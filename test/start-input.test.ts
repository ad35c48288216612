// A delegated task starts with its parsed input, defaults filled in: the workflow then never
// re-applies a default on replay, so changing one cannot break a running workflow (issue 7 item 6).
import { defaultPayloadConverter } from '@temporalio/common';
import { startDelegatedTask } from '../client/delegated-task';
import { DelegatedTaskInputSchema } from '../workflows/delegated-task/input';
import { connectClient, uniqueQueue } from './harness/planner';
import type { Client } from '@temporalio/client';

let client: Client;
beforeAll(async () => {
  client = await connectClient();
});
afterAll(() => client?.connection.close());

it('records the input with every default filled in', async () => {
  // No worker polls this queue: only what the client sent is recorded.
  const raw = { agent: { name: 'deployer', url: 'http://127.0.0.1:9/' }, message: { text: 'Deploy build 1' }, policies: { watch: { mode: 'poll' } } };
  const handle = await startDelegatedTask(client, raw, { taskQueue: uniqueQueue('start-input') });
  try {
    const desc = await handle.describe();
    expect(desc.type).toBe('DelegatedTaskWorkflow');
    expect(desc.status.name).toBe('RUNNING');

    const history = await handle.fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(payload).toBeDefined();
    const recorded = defaultPayloadConverter.fromPayload<Record<string, unknown>>(payload!);
    // Every default the schema has today (new ones included), and what the caller gave kept.
    expect(recorded).toEqual(DelegatedTaskInputSchema.parse(raw));
    expect(recorded).toMatchObject({
      agent: raw.agent,
      message: raw.message,
      policies: { maxAuthRounds: 5, sendTimeout: '5m', watch: { mode: 'poll', pollInitial: '1s', pollMax: '30s', push: true } },
    });
    // What the workflow parses again on every replay is already complete: parsing changes nothing.
    expect(DelegatedTaskInputSchema.parse(recorded)).toEqual(recorded);
  } finally {
    await handle.terminate('test done');
  }
});
