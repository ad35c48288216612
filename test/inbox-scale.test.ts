// The inbox at scale: 200 waits (questions and approvals) listed from one visibility call, with no
// status query to any workflow (a query on an evicted workflow replays its whole history).
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client } from '@temporalio/client';
import { connectClient, temporalTarget } from '../runtime/temporal-connection';
import { listInbox } from '../client/inbox';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { testDataConverter, testEnv } from './harness/planner';
import { plannerSuite } from './support/suite';
import { DEPLOY, DIFF } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('inbox-scale');
const WAITS = 200;
const plan = `plan-inbox-scale-${Date.now()}`;
let reviewer: AgentHandle;
let deployer: AgentHandle;

beforeAll(async () => {
  [reviewer, deployer] = await Promise.all([startCodeReviewer(), startDeployer()]);
});
afterAll(async () => {
  // Terminated, not cancelled: 200 CancelTask calls would only slow the run down.
  await Promise.all(suite.started.map((id) => suite.client.workflow.getHandle(id).terminate('inbox-scale test done').catch(() => undefined)));
  await Promise.all([reviewer?.close(), deployer?.close()]);
});

/** A client whose every gRPC call is counted by method name. */
async function countingClient(): Promise<{ client: Client; calls: Map<string, number> }> {
  const calls = new Map<string, number>();
  const count: Interceptor = (options, nextCall) => {
    const method = options.method_definition.path.split('/').pop()!;
    calls.set(method, (calls.get(method) ?? 0) + 1);
    return new InterceptingCall(nextCall(options));
  };
  const connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: testEnv().address, TEMPORAL_NAMESPACE: testEnv().namespace }, {}), { interceptors: [count] });
  return { client: new Client({ connection, namespace: testEnv().namespace, dataConverter: testDataConverter() }), calls };
}

it(`lists ${WAITS} waits from one visibility call, with no status query (its time is bench/'s to measure)`, async () => {
  for (let i = 0; i < WAITS; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, (_, j) =>
        (i + j) % 2 === 0
          ? suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, planId: plan })
          : suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, planId: plan }),
      ),
    );
  }
  // Each is listed from its start (waiting on the agent's reply), then as the question or approval it asks.
  await eventually(async () => (await listInbox(suite.client, { planId: plan })).filter((e) => e.waitingOn !== 'agent').length === WAITS, `all ${WAITS} waits in the inbox`, 120_000, 500);

  const { client, calls } = await countingClient();
  try {
    calls.clear(); // connecting asks GetSystemInfo
    const entries = await listInbox(client, { planId: plan });
    expect(entries).toHaveLength(WAITS);
    expect(Object.fromEntries(calls)).toEqual({ ListWorkflowExecutions: 1 });
    const questions = entries.filter((e) => e.waitingOn === 'human');
    expect(questions).toHaveLength(WAITS / 2);
    expect(questions[0]).toMatchObject({ agent: 'code-reviewer', turn: 1, text: 'Which base branch should I compare this diff against?', planId: plan });
    expect(entries.filter((e) => e.waitingOn === 'operator')[0]?.text).toMatch(/^An operator must approve this deploy at /);
    // Oldest wait first.
    const times = entries.map((e) => e.waitingSince.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
  } finally {
    await client.connection.close();
  }
}, 180_000);
