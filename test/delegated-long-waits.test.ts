// Long and troubled AUTH_REQUIRED waits: history stays bounded across continue-as-new, polls see
// every approval round, refused and breaking streams fall back to GetTask and polling, and an agent
// that cannot be reached is reported instead of leaving a silent wait.
import { startDeployer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, chainHistories, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';
import { statusQuery } from '../workflows/delegated-task/messages';

const suite = plannerSuite('long-waits');
const sendsOf = (agent: AgentHandle) => agent.log.requests.filter((r) => r.method === 'SendMessage' || r.method === 'SendStreamingMessage');

describe('a month-long quiet AUTH_REQUIRED wait, compressed in time', () => {
  let deployer: AgentHandle;
  beforeAll(async () => {
    deployer = await startDeployer();
  });
  afterAll(() => deployer.close());

  it('signals nothing while quiet, continues as new within its budget, and completes after the approval with one alert', async () => {
    // Parked on the worker's shared watch after a 100 ms first lease; the backstop polls (20 ms,
    // growing to 50 ms) fill each run's history, and every new run leases and parks again. The
    // shared stream idles through many GetTask + resubscribe checks (the @a2a-js/sdk server sends
    // no keep-alives); none of them is news.
    const budget = 100;
    const handle = await suite.start({
      agent: { name: 'deployer', url: deployer.baseUrl },
      message: { text: DEPLOY },
      policies: { historyBudget: budget, watch: { idleTimeout: '40ms', firstLease: '100ms', lease: '100ms', pushBackstop: '20ms', inputPollMax: '50ms' } },
    });
    const firstRun = (await handle.describe()).runId;
    const waiting = await waitForStatus(handle, (s) => s.waitingOn === 'operator', 'AUTH_REQUIRED');
    const runs = await eventually(async () => {
      const s = await handle.query(statusQuery);
      return (s.continuedAsNew ?? 0) >= 8 && s;
    }, 'eight continue-as-new runs', 80_000, 250);
    expect(runs.waitingOn).toBe('operator');
    expect(runs.authRounds).toBe(1);
    const subscriptions = deployer.log.subscriptions.filter((s) => s.taskId === waiting.taskId).length;
    expect(subscriptions).toBeGreaterThan(100); // it really did watch, through idle stream after idle stream

    await deployer.approve(waiting.taskId!);
    const result = await handle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(result.artifacts.map((a) => a.name)).toContain('deploy-result.json');
    expect(suite.sink.forWorkflow(handle.workflowId).map((a) => a.body.kind)).toEqual(['auth']);
    expect(sendsOf(deployer).filter((r) => r.taskId === undefined || r.taskId === waiting.taskId)).toHaveLength(1);

    const histories = await chainHistories(suite.client, handle.workflowId, firstRun);
    expect(histories.length).toBeGreaterThanOrEqual(9);
    const signals = (h: (typeof histories)[number]) => h.events!.filter((e) => e.workflowExecutionSignaledEventAttributes).map((e) => e.workflowExecutionSignaledEventAttributes!.signalName);
    for (const h of histories) expect(h.events!.length).toBeLessThanOrEqual(budget + 15);
    // A quiet wait has nothing to say: no signal at all, however many idle checks ran; the last run
    // may hear the approval from the shared stream (the WORKING after it), once, and on a loaded
    // machine may be handed back to a lease once (`rewatch`: the shared watch lost a GetTask or its
    // hold's heartbeat, activities/shared-watch.ts), as one fresh-clone CI run saw (at fb89cc7).
    for (const h of histories.slice(0, -1)) expect(signals(h)).toEqual([]);
    expect(['', 'observe', 'rewatch', 'observe,rewatch', 'rewatch,observe']).toContain(signals(histories.at(-1)!).join());
  }, 120_000);
});

describe('an agent that cannot stream and needs two approvals', () => {
  let deployer: AgentHandle;
  beforeAll(async () => {
    deployer = await startDeployer({ streaming: false, authRounds: 2 });
  });
  afterAll(() => deployer.close());

  it('sees the second request although its poll missed the WORKING between, alerts it and counts it', async () => {
    const handle = await suite.start({
      agent: { name: 'deployer', url: deployer.baseUrl },
      message: { text: DEPLOY },
      policies: { watch: { mode: 'poll', pollInitial: '300ms', pollMax: '300ms' } },
    });
    for (let round = 1; round <= 2; round++) {
      const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator' && x.authRounds === round, `approval round ${round}`);
      expect(s.text).toContain(`approval ${round} of 2`);
      await eventually(() => suite.sink.forWorkflow(handle.workflowId).length >= round, `alert ${round}`);
      await deployer.approve(s.taskId!);
    }
    const result = await handle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    const alerts = suite.sink.forWorkflow(handle.workflowId);
    expect(alerts.map((a) => a.body.text)).toEqual([expect.stringContaining('approval 1 of 2'), expect.stringContaining('approval 2 of 2')]);
  });

  it('enforces maxAuthRounds on rounds that only a poll saw', async () => {
    const handle = await suite.start({
      agent: { name: 'deployer', url: deployer.baseUrl },
      message: { text: DEPLOY },
      policies: { maxAuthRounds: 1, watch: { mode: 'poll', pollInitial: '300ms', pollMax: '300ms' } },
    });
    const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'approval round 1');
    await eventually(() => suite.sink.forWorkflow(handle.workflowId).length >= 1, 'alert 1');
    await deployer.approve(s.taskId!);
    const err = (await handle.result().catch((e: unknown) => e)) as { cause?: { type?: string } };
    expect(err.cause?.type).toBe('AuthRoundsExceeded');
    expect(await deployer.taskState(s.taskId!)).toBe('TASK_STATE_CANCELED');
  });
});

describe('an agent that refuses SubscribeToTask with TASK_NOT_FOUND (as a2a-go does)', () => {
  let deployer: AgentHandle;
  beforeAll(async () => {
    deployer = await startDeployer({ refuseSubscriptions: true });
  });
  afterAll(() => deployer.close());

  it('falls back to GetTask and polling, alerts, and completes after the approval', async () => {
    const handle = await suite.start({
      agent: { name: 'deployer', url: deployer.baseUrl },
      message: { text: DEPLOY },
      policies: { watch: { pollInitial: '300ms', pollMax: '600ms' } },
    });
    const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
    await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], 'the auth alert');
    await deployer.approve(s.taskId!);
    const result = await handle.result();
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(result.artifacts.map((a) => a.name)).toContain('deploy-result.json');
    expect(deployer.log.requests.filter((r) => r.method === 'SubscribeToTask').length).toBeLessThanOrEqual(6);
  });
});

describe('an agent whose streams close right after their first frame', () => {
  let deployer: AgentHandle;
  beforeAll(async () => {
    deployer = await startDeployer({ dropStreams: 10_000 });
  });
  afterAll(() => deployer.close());

  it('backs off, polls after a bound instead of spinning, and keeps history small', async () => {
    const handle = await suite.start({
      agent: { name: 'deployer', url: deployer.baseUrl },
      message: { text: DEPLOY },
      policies: { watch: { pollInitial: '300ms', pollMax: '1s' } },
    });
    const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
    await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], 'the auth alert');
    // Streams that closed while the task was still WORKING belong to the round before; the round
    // that holds AUTH_REQUIRED subscribes before it alerts, so count from the alert.
    const subscribes = () => deployer.log.requests.filter((r) => r.method === 'SubscribeToTask').length;
    const atAlert = subscribes();
    await new Promise((r) => setTimeout(r, 10_000));
    expect(subscribes() - atAlert).toBeLessThanOrEqual(4); // the rest of maxEmptyCloses (5), then polling
    expect(deployer.log.requests.at(-1)?.method).toBe('GetTask');
    const history = await handle.fetchHistory();
    expect(history.events!.length).toBeLessThan(40);
    await deployer.approve(s.taskId!);
    expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
  }, 60_000);
});

describe('an agent that goes away during AUTH_REQUIRED', () => {
  it('alerts the operator (kind unreachable), shows it in the status, and keeps the wait', async () => {
    const deployer = await startDeployer();
    const handle = await suite.start({
      agent: { name: 'deployer', url: deployer.baseUrl },
      message: { text: DEPLOY },
      policies: { watch: { unreachableAfter: '1s' } },
    });
    try {
      await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
      await eventually(() => suite.sink.forWorkflow(handle.workflowId)[0], 'the auth alert');
      await deployer.close();
      const alert = await eventually(() => suite.sink.forWorkflow(handle.workflowId).find((a) => a.body.kind === 'unreachable'), 'the unreachable alert', 20_000);
      expect(alert.body.text).toMatch(/cannot watch task .* at deployer/);
      const s = await waitForStatus(handle, (x) => x.watchProblem !== undefined, 'the problem in the status');
      expect(s.watchProblem).toMatchObject({ kind: 'unreachable', error: expect.stringMatching(/ConnectionError/) });
      expect(s.waitingOn).toBe('operator');
      expect((await handle.describe()).status.name).toBe('RUNNING');
    } finally {
      await handle.terminate('test over');
    }
  }, 60_000);
});

itReplaysItsHistories(suite);
