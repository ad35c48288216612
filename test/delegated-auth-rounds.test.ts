// Approval rounds counted by what the agent did, not by its words: a deployer that asks two and
// three times in identical words (the suite's JS deployer and its Python a2a-sdk one), watched by
// stream and by polling over both bindings. Each round
// is counted (authRounds), alerted once, and shown in the Temporal UI's details.
import { startDeployer, type AgentHandle } from './agents';
import { startSdkAgent, type SdkAgent } from './agents/sdk-agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('auth-rounds');

/** The agent's approve(): the JS deployer's and the Python one's are the same call. */
interface Approver {
  baseUrl: string;
  approve(taskId: string): Promise<unknown>;
  close(): Promise<unknown> | unknown;
}

async function countsAlertsAndShows(deployer: Approver, mode: 'stream' | 'poll', rounds: number): Promise<void> {
  const handle = await suite.start({
    agent: { name: 'deployer', url: deployer.baseUrl },
    message: { text: DEPLOY },
    policies: { watch: { mode, pollInitial: '100ms', pollMax: '200ms' } },
  });
  let text: string | undefined;
  for (let round = 1; round <= rounds; round++) {
    const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator' && x.authRounds === round, `approval round ${round}`);
    if (text !== undefined) expect(s.text).toBe(text); // the same words every round
    text = s.text;
    const alerts = await eventually(() => {
      const a = suite.sink.forWorkflow(handle.workflowId);
      return a.length >= round && a;
    }, `the alert of round ${round}`);
    expect(alerts).toHaveLength(round);
    // The UI's details name the round, so a second approval reads as new there too.
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toContain(`approval round ${round}`);
    await deployer.approve(s.taskId!);
  }
  const result = await handle.result();
  expect(result.state).toBe('TASK_STATE_COMPLETED');
  expect(suite.sink.forWorkflow(handle.workflowId)).toHaveLength(rounds);
}

describe.each([
  ['JSONRPC', 'stream', 2],
  ['HTTP+JSON', 'stream', 3],
  ['JSONRPC', 'poll', 3],
  ['HTTP+JSON', 'poll', 2],
] as const)('a deployer over %s, watched by %s, asking %i times in the same words', (binding, mode, rounds) => {
  let deployer: AgentHandle;
  beforeAll(async () => {
    deployer = await startDeployer({ preferredBinding: binding, authRounds: rounds, sameApprovalText: true });
  });
  afterAll(() => deployer.close());

  it('counts, alerts and shows every round', () => countsAlertsAndShows(deployer, mode, rounds));
});

describe.each([
  ['JSONRPC', 'stream', 2],
  ['HTTP+JSON', 'poll', 3],
] as const)('a deployer on the Python a2a-sdk over %s, watched by %s, asking %i times in the same words', (binding, mode, rounds) => {
  let deployer: SdkAgent;
  beforeAll(async () => {
    deployer = await startSdkAgent('python', 'deployer', { preferredBinding: binding, authRounds: rounds, sameApprovalText: true });
  }, 120_000);
  afterAll(() => deployer?.close());

  it('counts, alerts and shows every round', () => countsAlertsAndShows(deployer, mode, rounds));
});

itReplaysItsHistories(suite);
