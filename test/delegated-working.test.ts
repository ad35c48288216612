// The working deadline (policies.working): a remote task that stays WORKING past it meets the same
// policies as a question or an approval: remind (a `working` alert per interval, each its own),
// fail (WorkingDeadlineExceeded), cancel (CancelTask, then fail). The deployer here works for a
// minute before it asks for anything.
import { WorkflowFailedError } from '@temporalio/client';
import { startCodeReviewer, startDeployer, type AgentHandle } from './agents';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, DIFF, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';

const suite = plannerSuite('working-deadline');
let deployer: AgentHandle;

beforeAll(async () => {
  deployer = await startDeployer({ workMs: 60_000 });
});
afterAll(() => deployer?.close());

async function failureOf(p: Promise<unknown>): Promise<{ type?: string; message: string }> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause as { type?: string; message: string };
}

const start = (working: { after: string; onDeadline: 'remind' | 'fail' | 'cancel'; remindEvery?: string }) =>
  suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, policies: { working } });

it('remind: a working alert each interval while the agent works, each its own', async () => {
  const handle = await start({ after: '1s', onDeadline: 'remind', remindEvery: '1s' });
  const alerts = await eventually(() => {
    const a = suite.sink.forWorkflow(handle.workflowId);
    return a.length >= 2 && a;
  }, 'two working alerts', 15_000);
  expect(alerts.map((a) => a.body.kind)).toEqual(alerts.map(() => 'working'));
  expect(new Set(alerts.map((a) => a.idempotencyKey)).size).toBe(alerts.length);
  const s = await waitForStatus(handle, () => true, 'status');
  expect(s.state).toBe('TASK_STATE_WORKING');
  await handle.cancel();
});

it('fail: fails the workflow with a typed reason naming the wait', async () => {
  const handle = await start({ after: '1s', onDeadline: 'fail' });
  const cause = await failureOf(handle.result());
  expect(cause.type).toBe('WorkingDeadlineExceeded');
  expect(cause.message).toMatch(/waited for the agent to finish its work .* longer than 1s/);
});

it('cancel: sends CancelTask to the agent stuck working, then fails', async () => {
  const handle = await start({ after: '1s', onDeadline: 'cancel' });
  const cause = await failureOf(handle.result());
  expect(cause.type).toBe('WorkingDeadlineExceeded');
  expect(cause.message).toMatch(/sent CancelTask \(remote state now TASK_STATE_CANCELED\)/);
});

describe('the whole-task deadline (policies.total), whatever the task waits on', () => {
  it('remind: a total alert each interval while the agent works, each its own', async () => {
    const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, policies: { total: { after: '1s', onDeadline: 'remind', remindEvery: '1s' } } });
    const alerts = await eventually(() => {
      const a = suite.sink.forWorkflow(handle.workflowId).filter((x) => x.body.kind === 'total');
      return a.length >= 2 && a;
    }, 'two total alerts', 15_000);
    expect(new Set(alerts.map((a) => a.idempotencyKey)).size).toBe(alerts.length);
    await handle.cancel();
  });

  it('fail: a question unanswered past the whole-task deadline fails the task, typed', async () => {
    const reviewer = await startCodeReviewer();
    try {
      const handle = await suite.start({ agent: { name: 'code-reviewer', url: reviewer.baseUrl }, message: { text: DIFF }, policies: { total: { after: '3s', onDeadline: 'fail' }, input: { after: '1h', onDeadline: 'remind' } } });
      const cause = await failureOf(handle.result());
      expect(cause.type).toBe('TaskDeadlineExceeded');
      expect(cause.message).toMatch(/waited for the whole task to end \(policies.total\) longer than 3s/);
      expect(suite.sink.forWorkflow(handle.workflowId).map((a) => a.body.kind)).toEqual(['input']);
    } finally {
      await reviewer.close();
    }
  });
});

itReplaysItsHistories(suite);
