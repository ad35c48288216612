// The face for A2A v0.3 callers (server/face/v0_3/): the Python a2a-sdk 0.3.26 client runs the
// seed plan through it on both bindings, with no A2A-Version header: the question answered on
// the same task and context, the approval relayed as auth-required, completed.
import { startCodeReviewer, startDeployer, BASE_BRANCH_QUESTION } from './agents';
import { TOKEN } from './support/api';
import { faceWithAgents } from './support/face-client';
import { runPythonV03Client, type V03Step } from './support/python-v03-client';
import { itReplaysItsHistories, plannerSuite } from './support/suite';

const suite = plannerSuite('a2a-face-v03');
const face = faceWithAgents(suite, () => Promise.all([startCodeReviewer(), startDeployer()]));

const stepOf = (steps: V03Step[], name: string): V03Step => {
  const s = steps.find((x) => x.step === name);
  if (!s) throw new Error(`the v0.3 client printed no ${name} step: ${JSON.stringify(steps)}`);
  return s;
};

describe.each([
  ['JSONRPC', 'streaming'],
  ['JSONRPC', 'blocking'],
  ['HTTP+JSON', 'streaming'],
  ['HTTP+JSON', 'blocking'],
] as const)('the Python a2a-sdk 0.3.26 client over %s (%s)', (binding, mode) => {
  it('runs the seed plan: question answered on the same task, approval relayed as auth-required, completed', async () => {
    const steps = await runPythonV03Client(face.api.url, TOKEN, binding, mode);
    const card = stepOf(steps, 'card');
    expect(card).toMatchObject({ protocolVersion: '0.3', preferredTransport: 'JSONRPC', url: `${face.api.url}/a2a/jsonrpc`, streaming: true });
    expect(card.additional).toEqual([{ url: `${face.api.url}/a2a/rest`, transport: 'HTTP+JSON' }]);

    const asked = stepOf(steps, 'asked');
    suite.track(String(asked.id));
    expect(asked).toMatchObject({ kind: 'task', state: 'input-required' });
    expect(asked.id).toMatch(/^a2a-/);
    expect(asked.text).toContain(BASE_BRANCH_QUESTION);
    expect(asked.text).toContain('agent code-reviewer');

    const answered = stepOf(steps, 'answered');
    expect(answered).toMatchObject({ id: asked.id, contextId: asked.contextId, state: 'auth-required' });
    expect(answered.text).toContain('agent deployer');
    // The answer reached the reviewer on its task.
    const toReviewer = face.reviewer.log.userMessages.filter((m) => m.messageId.startsWith(`${String(asked.id)}.`));
    expect(toReviewer.map((m) => m.text.split('\n')[0])).toEqual(['Please review this diff of payments-api:', 'main']);

    const done = stepOf(steps, 'completed');
    expect(done).toMatchObject({ id: asked.id, contextId: asked.contextId, state: 'completed', historyKinds: ['message'] });
    // Streaming: the resubscribe stream opened at auth-required, then carried working and
    // completed. Blocking: tasks/get polled after the approval ended at completed.
    const states = done.streamStates as string[];
    expect(states.at(-1)).toBe('completed');
    if (mode === 'streaming') {
      expect(states[0]).toBe('auth-required');
      expect(states).toContain('working');
    }
    expect(done.artifacts).toEqual(expect.arrayContaining([expect.stringMatching(/review|deploy/)]));
  });
});

itReplaysItsHistories(suite);
