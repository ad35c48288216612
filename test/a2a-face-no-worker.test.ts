// The A2A face while no planner worker polls its task queue (the fuzz suite found it): a blocking
// SendMessage that starts a plan answers at once with the task as recorded, saying that no worker
// runs it yet, instead of holding the caller; reading the task says which task queue needs a
// worker, instead of the SDK's bare "Failed to query Workflow".
import type { RunningServer } from '../server/main';
import { call, startApi } from './support/api';
import { plannerSuite } from './support/suite';

const suite = plannerSuite('a2a-face-no-worker', () => ({}), { workers: false });
let api: RunningServer;

beforeAll(async () => {
  api = await startApi(suite.client, suite.queue);
});
afterAll(async () => {
  await api?.close();
});

type Err = { code: number; message: string };
type WireTask = { id: string; status: { state: string; message?: { parts: Array<{ text?: string }> } } };
/** A caller that gives up after `ms`: a face that holds it longer has not answered. */
const rpc = (method: string, params: unknown, ms: number) =>
  Promise.race([
    call(api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: { 'a2a-version': '1.0' } }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${method}: no answer in ${ms} ms`)), ms).unref()),
  ]);

it('a blocking SendMessage is answered with the task as submitted, saying no worker polls the queue; GetTask names the queue', async () => {
  const sent = await rpc('SendMessage', { message: { messageId: `no-worker-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'Review this diff' }] } }, 8_000);
  const task = (sent.body as { result?: { task?: WireTask }; error?: Err }).result?.task;
  expect((sent.body as { error?: Err }).error).toBeUndefined();
  expect(task?.status.state).toBe('TASK_STATE_SUBMITTED');
  expect(task?.status.message?.parts[0]?.text).toContain(`no planner worker polls task queue ${suite.queue}`);

  const read = await rpc('GetTask', { id: task!.id }, 30_000);
  const err = (read.body as { error?: Err }).error;
  expect(err?.message).toContain(`task queue ${suite.queue}`);
  expect(err?.message).not.toContain('Failed to query Workflow');
}, 60_000);
