// The one history follower (client/follow-history.ts) that `planner run`, the demo, the API's event
// stream and the A2A face's SubscribeToTask use: it reports each move of a workflow's history and
// its close, and a long follow leaves no abort listeners piling up on its caller's signal. The
// workflow here has no worker: signals alone move its history.
import { getEventListeners } from 'node:events';
import type { Client } from '@temporalio/client';
import { followHistory, type HistoryMove } from '../client/follow-history';
import { connectClient, uniqueQueue } from './harness/planner';

let client: Client;
const queue = uniqueQueue('follow-history');

beforeAll(async () => {
  client = await connectClient();
});
afterAll(async () => {
  await client?.connection.close();
});

const SIGNALS = 15;

async function startIdle(id: string) {
  // A type no worker runs: the workflow stays open and moves only when signalled.
  return client.workflow.start('NobodyRunsThis', { taskQueue: queue, workflowId: id, workflowExecutionTimeout: '5 minutes' });
}

it("Temporal's client leaves a listener on the signal it is given, once per call (why each poll gets its own)", async () => {
  const handle = await startIdle(`follow-history-sdk-${Date.now()}`);
  const caller = new AbortController();
  for (let i = 0; i < 12; i++) {
    await client.withAbortSignal(caller.signal, () => client.workflowService.getWorkflowExecutionHistory({ namespace: client.options.namespace, execution: { workflowId: handle.workflowId } }));
  }
  expect(getEventListeners(caller.signal, 'abort').length).toBeGreaterThanOrEqual(12);
  await handle.terminate('done');
});

it('reports every move and the close, with at most one listener on the caller signal throughout', async () => {
  const handle = await startIdle(`follow-history-${Date.now()}`);
  const caller = new AbortController();
  const moves: HistoryMove['kind'][] = [];
  let maxListeners = 0;
  let signalled = 0;
  for await (const move of followHistory(client, handle.workflowId, { signal: caller.signal })) {
    moves.push(move.kind);
    maxListeners = Math.max(maxListeners, getEventListeners(caller.signal, 'abort').length);
    if (move.kind === 'closed') {
      expect(move.description.status.name).toBe('TERMINATED');
      break;
    }
    if (signalled < SIGNALS) await handle.signal('poke', ++signalled);
    else await handle.terminate('followed to the end');
  }
  expect(moves.at(-1)).toBe('closed');
  // The first poll returns the history so far; each signal is seen (several may come in one poll).
  expect(moves.filter((m) => m === 'moved').length).toBeGreaterThanOrEqual(SIGNALS / 2);
  expect(maxListeners).toBeLessThanOrEqual(1);
  expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
});

it('returns when its caller aborts, during a quiet long poll', async () => {
  const handle = await startIdle(`follow-history-abort-${Date.now()}`);
  const caller = new AbortController();
  const seen: string[] = [];
  const t0 = Date.now();
  const follow = (async () => {
    for await (const move of followHistory(client, handle.workflowId, { signal: caller.signal })) {
      seen.push(move.kind);
      setTimeout(() => caller.abort(), 300); // abort while the next poll waits on a quiet history
    }
  })();
  await follow;
  expect(seen).toEqual(['moved']);
  expect(Date.now() - t0).toBeLessThan(5000);
  await handle.terminate('done');
});
