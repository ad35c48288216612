// The outbound address policy on the planner's own surfaces: the API and the A2A face refuse a plan
// naming a metadata address before anything starts (the caller learns the URL and the rule), and a
// worker whose agent's card points its interface at a refused address ends the step with a typed,
// non-retryable AddressRefusedError instead of connecting or retrying.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { RunningServer } from '../server/main';
import { startHostileAgent, type HostileAgent } from './a2a/hostile-agent';
import { call, startApi } from './support/api';
import { itReplaysItsHistories, plannerSuite } from './support/suite';

const suite = plannerSuite('outbound-edges');
let api: RunningServer;
let hostile: HostileAgent;

beforeAll(async () => {
  hostile = await startHostileAgent();
  api = await startApi(suite.client, suite.queue);
});
afterAll(async () => {
  await api?.close();
  await hostile?.close();
});

const META = 'http://169.254.169.254/latest/meta-data/';
const metaPlan = { name: 'ssrf', agents: { meta: { url: META } }, steps: [{ id: 'one', agent: 'meta', text: 'hi' }] };

async function started(): Promise<number> {
  let n = 0;
  for await (const _ of suite.client.workflow.list({ query: `TaskQueue = "${suite.queue}" AND WorkflowType = "PlanWorkflow"` })) n++;
  return n;
}

it('the API refuses a plan naming a metadata address with a 400 naming the URL and the rule', async () => {
  const r = await call(api.url, 'POST', '/v1/plans', { body: { plan: metaPlan } });
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({
    error: { code: 'invalid_request', details: [{ path: 'body.plan.agents.meta.url', message: expect.stringContaining(`${META} is refused: 169.254.169.254 is a cloud metadata address`) }] },
  });
});

it('the A2A face refuses an upstream plan document naming a metadata address with -32602', async () => {
  const message = { messageId: 'm-ssrf', role: 'ROLE_USER', parts: [{ data: { plan: metaPlan } }] };
  const r = await call(api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }, headers: { 'a2a-version': '1.0' } });
  expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: expect.stringContaining(`agents.meta.url: ${META} is refused`) } });
  expect(await started()).toBe(0);
});

it('a card pointing its interface at a refused address fails the step with AddressRefusedError, not retried', async () => {
  // The card is fetched from loopback (allowed); its interface is link-local: refused on connect.
  hostile.setCard({ ...hostile.card, supportedInterfaces: [{ url: 'http://169.254.1.1/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
  const before = hostile.requests.length;
  const handle = await suite.start({ agent: { name: 'pointer', url: hostile.baseUrl }, message: { text: 'hi' } });
  const err = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
  expect(err).toBeInstanceOf(WorkflowFailedError);
  let cause: unknown = err.cause;
  while (cause instanceof Error && !(cause instanceof ApplicationFailure && cause.type === 'AddressRefusedError')) cause = cause.cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).message).toContain('not connecting: 169.254.1.1 is refused: 169.254.1.1 is link-local');
  expect((cause as ApplicationFailure).nonRetryable).toBe(true);
  // One card fetch, nothing else: the refused address was never retried through the agent.
  expect(hostile.requests.length - before).toBe(1);
  const attempts = (await handle.fetchHistory()).events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
  expect(attempts.every((a) => a === 1)).toBe(true);
}, 60_000);

itReplaysItsHistories(suite);
