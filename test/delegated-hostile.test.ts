// Hostile agents at the planner level: each misbehaviour ends the delegated task in a typed failure
// (or a bounded retry that then fails), never a crash or a hang, while a healthy task delegated at the
// same moment on the same worker completes. The A2A client's own handling of each case (both
// bindings, connections released) is in test/a2a/hostile.test.ts.
import { WorkflowFailedError } from '@temporalio/client';
import { startDeployer, type AgentHandle } from './agents';
import { startHostileAgent, type CustomResponse, type HostileMode } from './a2a/hostile-agent';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, waitForStatus } from './support/delegated';

const suite = plannerSuite('hostile');
const fastWatch = { heartbeatTimeout: '3s', firstHeartbeatTimeout: '3s', pollInitial: '200ms', pollMax: '1s' } as const;

let healthy: AgentHandle;
beforeAll(async () => {
  healthy = await startDeployer();
});
afterAll(() => healthy.close());

/** streaming false: the card says so, and the first message goes out as a blocking SendMessage. */
type Case = [label: string, mode: HostileMode, custom: CustomResponse | undefined, streaming: boolean, failure: string, message: RegExp];
const cases: Case[] = [
  ['invalid JSON', 'invalid-json', undefined, true, 'InvalidAgentResponseError', /SendStreamingMessage: /],
  ['HTML with status 200', 'html-200', undefined, true, 'InvalidAgentResponseError', /SendStreamingMessage: .*text\/html/],
  ['a JSON answer to a streaming call (wrong content type)', 'unknown-state', undefined, true, 'InvalidAgentResponseError', /expected text\/event-stream, got content-type 'application\/json'/],
  ['a task state no version of the spec has', 'unknown-state', undefined, false, 'InvalidAgentResponseError', /SendMessage: .*state: invalid enum value/],
  ['a missing required field', 'missing-field', undefined, false, 'InvalidAgentResponseError', /SendMessage: .*missing required field/],
  ['a 10 MiB SSE frame', 'sse-huge', undefined, true, 'InvalidAgentResponseError', /SendStreamingMessage: stream frame/],
  [
    'a storm of 503s (Retry-After 1 s): bounded retries, then the typed failure',
    'custom',
    { status: 503, contentType: 'text/plain', headers: { 'retry-after': '1' }, body: 'overloaded, come back later' },
    true,
    'HttpStatusError',
    /HTTP 503/,
  ],
];

describe('a hostile agent beside a healthy one', () => {
  it.concurrent.each(cases)('%s', async (_label, mode, custom, streaming, failure, message) => {
    const hostile = await startHostileAgent();
    try {
      hostile.setMode(mode, custom);
      if (!streaming) hostile.setCard({ ...hostile.card, capabilities: { streaming: false, pushNotifications: false } });
      const startedAt = Date.now();
      const bad = await suite.start({ agent: { name: 'hostile', url: hostile.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });
      const good = await suite.start({ agent: { name: 'deployer', url: healthy.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });

      const err = await bad.result().then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause as { type?: string; message: string };
      expect({ type: cause.type, message: cause.message }).toEqual({ type: failure, message: expect.stringMatching(message) });
      expect(cause.message).toContain('agent hostile');
      expect(Date.now() - startedAt).toBeLessThan(50_000);
      // Bounded: at most the send activity's 10 attempts, each a send and a reconciling lookup.
      expect(hostile.requests.filter((r) => !r.url.startsWith('/.well-known/')).length).toBeLessThanOrEqual(20);

      const s = await waitForStatus(good, (x) => x.waitingOn === 'operator', 'the healthy deploy to wait for approval');
      await healthy.approve(s.taskId!);
      expect((await good.result()).state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await hostile.close();
    }
  }, 60_000);
});

itReplaysItsHistories(suite);
