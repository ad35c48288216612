// A quiet approval wait adds no history: the agent says nothing for many idle timeouts (compressed
// to half a second), each one ending the silent stream, then GetTask and a resubscribe; none of it
// is news, so none of it reaches the workflow. Against the suite's JS and Python deployers.
import { startSdkAgent, type SdkAgent, type Sdk } from './agents/sdk-agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, waitForStatus } from './support/delegated';

const suite = plannerSuite('quiet-wait');

describe.each(['js', 'python'] as Sdk[])('a deployer on the %s SDK', (sdk) => {
  let deployer: SdkAgent;
  beforeAll(async () => {
    deployer = await startSdkAgent(sdk, 'deployer');
  }, 120_000);
  afterAll(() => deployer?.close());

  it('waits through ten idle timeouts without a history event', async () => {
    const handle = await suite.start({
      agent: { name: 'deployer', url: deployer.baseUrl },
      message: { text: DEPLOY },
      policies: { watch: { idleTimeout: '500ms' } },
    });
    const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
    // Let the wait settle (alert posted, the watch's first look), then count.
    await new Promise((r) => setTimeout(r, 2000));
    const before = (await handle.fetchHistory()).events!.length;
    const subscribed = deployer.requests.filter((r) => /subscribe|resubscribe/i.test(r.method)).length;
    await new Promise((r) => setTimeout(r, 6000));
    const events = (await handle.fetchHistory()).events!;
    // The watch did go round: it subscribed again after idle timeouts.
    expect(deployer.requests.filter((r) => /subscribe|resubscribe/i.test(r.method)).length).toBeGreaterThan(subscribed + 3);
    expect(events.slice(before).map((e) => e.eventType)).toEqual([]);
    await deployer.approve(s.taskId!);
    expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
  }, 60_000);
});

itReplaysItsHistories(suite);
