// Approval rounds counted by what the agent did, not by its words: a deployer that asks two and
// three times in identical words, watched by stream and by polling over both bindings. Each round
// is counted (authRounds), alerted once, and shown in the Temporal UI's details.
import { startDeployer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('auth-rounds');

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

  it('counts, alerts and shows every round', async () => {
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
  });
});

itReplaysItsHistories(suite);
