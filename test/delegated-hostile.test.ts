// Hostile agents at the planner level: each misbehaviour ends the delegated task in a typed failure
// (or a bounded retry that then fails), never a crash or a hang, while a healthy task delegated at the
// same moment on the same worker completes. The A2A client's own handling of each case (both
// bindings, connections released) is in test/a2a/hostile.test.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowFailedError } from '@temporalio/client';
import { startDeployer, type AgentHandle } from './agents';
import { startHostileAgent, type CustomResponse, type HostileMode } from './a2a/hostile-agent';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { DEPLOY, waitForStatus } from './support/delegated';
import { eventually } from './support/wait';
import { PlannerWaitText, SEARCH_ATTRIBUTE_VALUE_MAX_BYTES } from '../workflows/search-attributes';

const suite = plannerSuite('hostile');
const fastWatch = { heartbeatTimeout: '3s', firstHeartbeatTimeout: '3s', pollInitial: '200ms', pollMax: '1s' } as const;

let healthy: AgentHandle;
beforeAll(async () => {
  healthy = await startDeployer();
});
afterAll(() => healthy.close());

/** streaming false: the card says so, and the first message goes out as a blocking SendMessage. */
type Case = [label: string, mode: HostileMode, custom: CustomResponse | undefined, streaming: boolean, failure: string, message: RegExp, extra?: Extra];
interface Extra {
  /** Delegated-task policies beyond the fast watch (a short send timeout for a stall). */
  policies?: Record<string, unknown>;
  /** Rewrites the served card; gets the URL of a plain server elsewhere that answers 404 to all. */
  card?: (card: Record<string, unknown>, elsewhere: string) => unknown;
  /** At least this many A2A requests reached the hostile agent (retries happened). */
  minRequests?: number;
  /** Requests the server elsewhere must have seen (the card was followed). */
  elsewhereHits?: number;
}
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
  ['a stream truncated inside a frame', 'sse-truncated', undefined, true, 'InvalidAgentResponseError', /GetTask: /, { minRequests: 2 }],
  [
    'a card whose interfaces name another host and port',
    'ok-task',
    undefined,
    true,
    'HttpStatusError',
    /HTTP 404/,
    {
      card: (card, elsewhere) => ({
        ...card,
        supportedInterfaces: [
          { url: `${elsewhere}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: `${elsewhere}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        ],
      }),
      elsewhereHits: 1,
    },
  ],
];

/** A plain server at another port: answers 404 to everything and counts what reaches it. */
async function startElsewhere(): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no agent here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a hostile agent beside a healthy one', () => {
  it.concurrent.each(cases)('%s', async (_label, mode, custom, streaming, failure, message, extra = {}) => {
    const hostile = await startHostileAgent();
    const elsewhere = await startElsewhere();
    try {
      hostile.setMode(mode, custom);
      let card: Record<string, unknown> = hostile.card;
      if (!streaming) card = { ...card, capabilities: { streaming: false, pushNotifications: false } };
      if (extra.card) card = extra.card(card, elsewhere.url) as Record<string, unknown>;
      if (card !== hostile.card) hostile.setCard(card);
      const startedAt = Date.now();
      const bad = await suite.start({ agent: { name: 'hostile', url: hostile.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch, ...extra.policies } });
      const good = await suite.start({ agent: { name: 'deployer', url: healthy.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });

      const err = await bad.result().then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause as { type?: string; message: string };
      expect({ type: cause.type, message: cause.message }).toEqual({ type: failure, message: expect.stringMatching(message) });
      expect(cause.message).toContain('agent hostile');
      expect(Date.now() - startedAt).toBeLessThan(50_000);
      // Bounded: at most the send activity's 10 attempts, each a send and a reconciling lookup.
      const calls = hostile.requests.filter((r) => !r.url.startsWith('/.well-known/')).length;
      expect(calls).toBeLessThanOrEqual(20);
      expect(calls).toBeGreaterThanOrEqual(extra.minRequests ?? 0);
      expect(elsewhere.hits.length).toBeGreaterThanOrEqual(extra.elsewhereHits ?? 0);
      if (!extra.elsewhereHits) expect(elsewhere.hits).toEqual([]);

      const s = await waitForStatus(good, (x) => x.waitingOn === 'operator', 'the healthy deploy to wait for approval');
      await healthy.approve(s.taskId!);
      expect((await good.result()).state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await hostile.close();
      await elsewhere.close();
    }
  }, 60_000);
});

/**
 * Faults that a retry may outlive: the send activity retries them on its policy (10 attempts,
 * backoff from 1 s to 30 s: minutes in all), so the test watches the retries for a while (typed,
 * spaced, never a spin), sees the healthy task complete meanwhile, then terminates the run.
 */
type RetriedCase = [label: string, mode: HostileMode, custom: CustomResponse | undefined, streaming: boolean, lastFailure: string, attempt: number, policies?: Record<string, unknown>];
const retried: RetriedCase[] = [
  // Before Retry-After: 0 fell back to the policy backoff, this ended the step at the first 503.
  ['a storm of 503s with Retry-After: 0', 'custom', { status: 503, contentType: 'text/plain', headers: { 'retry-after': '0' }, body: 'overloaded, come back now' }, true, 'HttpStatusError', 3],
  ['connection resets in the middle of a stream', 'reset-mid-stream', undefined, true, 'ConnectionError', 3],
  ['connection resets in the middle of a reply', 'reset-mid-body', undefined, false, 'ConnectionError', 3],
  // The stalled send gives up at its 2 s timeout, then its GetTask meets another never-ending
  // answer and waits out its 30 s lookup: the second attempt starts after about 33 s.
  ['a stream that stalls (no byte for longer than the send timeout)', 'sse-stall', undefined, true, 'TimeoutError', 2, { sendTimeout: '2s' }],
];

describe('a hostile agent whose fault a retry may outlive, beside a healthy one', () => {
  it.concurrent.each(retried)('%s: typed, spaced retries, and the healthy task completes', async (_label, mode, custom, streaming, lastFailure, attempt, policies) => {
    const hostile = await startHostileAgent();
    try {
      hostile.setMode(mode, custom);
      if (!streaming) hostile.setCard({ ...hostile.card, capabilities: { streaming: false, pushNotifications: false } });
      const bad = await suite.start({ agent: { name: 'hostile', url: hostile.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch, ...policies } });
      const good = await suite.start({ agent: { name: 'deployer', url: healthy.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });
      const startedAt = Date.now();

      const s = await waitForStatus(good, (x) => x.waitingOn === 'operator', 'the healthy deploy to wait for approval');
      await healthy.approve(s.taskId!);
      expect((await good.result()).state).toBe('TASK_STATE_COMPLETED');

      // The send is on a later attempt, and its last failure is typed.
      const pending = await eventually(async () => {
        const d = await bad.describe();
        const a = d.raw.pendingActivities?.find((x) => x.activityType?.name === 'sendMessage');
        return a && (a.attempt ?? 0) >= attempt && a.lastFailure ? a : undefined;
      }, `attempt ${attempt} of the send`, 55_000);
      expect(pending.lastFailure?.applicationFailureInfo?.type).toBe(lastFailure);
      expect(pending.lastFailure?.message).toContain('agent hostile');
      // Spaced by the backoff (1 s, 2 s, ...): a handful of calls, not a spin.
      const calls = hostile.requests.filter((r) => !r.url.startsWith('/.well-known/')).length;
      expect(calls).toBeGreaterThanOrEqual(2);
      expect(calls).toBeLessThanOrEqual(4 * ((pending.attempt ?? 0) + 1));
      expect((await bad.describe()).status.name).toBe('RUNNING');
      expect(Date.now() - startedAt).toBeLessThan(60_000);
      await bad.terminate('the test saw enough retries');
    } finally {
      await hostile.close();
    }
  }, 80_000);
});

describe('an agent whose approval request is 16,000 three-byte characters', () => {
  it('waits in the inbox with the request cut to the server\'s limit on a value, and completes after the approval', async () => {
    const wordy = await startDeployer({ approvalNote: ` ${'€'.repeat(16_000)}` });
    try {
      const h = await suite.start({ agent: { name: 'deployer', url: wordy.baseUrl }, message: { text: DEPLOY }, policies: { watch: fastWatch } });
      const s = await waitForStatus(h, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
      // The whole request in the status; in the inbox's attribute, as much as the server takes.
      expect(s.text).toContain('€'.repeat(16_000 - 200));
      const shown = (await h.describe()).typedSearchAttributes.get(PlannerWaitText)!;
      expect(shown.endsWith('…')).toBe(true);
      expect(Buffer.byteLength(JSON.stringify(shown))).toBeLessThanOrEqual(SEARCH_ATTRIBUTE_VALUE_MAX_BYTES);
      await wordy.approve(s.taskId!);
      expect((await h.result()).state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await wordy.close();
    }
  });
});

itReplaysItsHistories(suite);
