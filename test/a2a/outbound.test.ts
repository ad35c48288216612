/**
 * The outbound address policy (a2a/outbound-policy.ts) and the caps on what is read from agents,
 * against real loopback servers. Names that must resolve somewhere particular go through a
 * resolver table given to the policy: the same hook dns.lookup fills in production, so the
 * connect-time check judged here is the one the worker runs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import type { Client } from '@temporalio/client';
import {
  AddressRefusedError,
  HttpStatusError,
  HttpTransport,
  InvalidAgentResponseError,
  OutboundPolicy,
  OutboundPolicyConfigError,
  connectA2A,
  createA2AClient,
  resolveAgentCard,
} from '../../a2a';
import { createAlertOperator } from '../../activities/alert-operator';
import { checkPlanSource, InvalidPlanError } from '../../client/plan';
import { InvalidInputError, startDelegatedTask } from '../../client/delegated-task';
import { loadConfig } from '../../runtime/config';
import { startHostileAgent, type HostileAgent } from './hostile-agent';
import { collect, thrown, userMessage } from './helpers';
import pino from 'pino';

const TIMEOUTS = { connectMs: 1000, headersMs: 2000, bodyMs: 2000, streamIdleMs: 2000 };

/** A resolver answering from a table, as dns.lookup(…, {all: true}) would. */
function table(entries: Record<string, string>) {
  return (host: string, _o: unknown, cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void): void => {
    const address = entries[host];
    if (address === undefined) return cb(Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    cb(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  };
}

let hostile: HostileAgent;
let port: number;
/** Counts every request to a second loopback server: a followed redirect would land here. */
let bystander: Server;
let bystanderHits = 0;
let bystanderUrl: string;

beforeAll(async () => {
  hostile = await startHostileAgent();
  port = Number(new URL(hostile.baseUrl).port);
  bystander = createServer((_req, res) => {
    bystanderHits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(hostile.card));
  });
  await new Promise<void>((r) => bystander.listen(0, '127.0.0.1', r));
  bystanderUrl = `http://127.0.0.1:${(bystander.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await hostile.close();
  await new Promise((r) => bystander.close(r));
});

beforeEach(() => {
  hostile.setMode('ok-task');
  hostile.setCard(hostile.card);
});

describe('the edge: a plan or a task naming a refused address never starts', () => {
  test('a plan naming 169.254.169.254 is refused at check, naming the URL and the rule', () => {
    const plan = {
      name: 'ssrf',
      agents: { meta: { url: 'http://169.254.169.254/latest/meta-data/' }, fine: { url: hostile.baseUrl } },
      steps: [{ id: 'one', agent: 'meta', text: 'hi' }],
    };
    const e = (() => {
      try {
        checkPlanSource({ plan });
      } catch (err) {
        return err as Error;
      }
      throw new Error('the plan was accepted');
    })();
    expect(e).toBeInstanceOf(InvalidPlanError);
    expect(e.message).toContain('agents.meta.url');
    expect(e.message).toContain('http://169.254.169.254/latest/meta-data/ is refused');
    expect(e.message).toContain('cloud metadata address');
    expect(e.message).not.toContain('agents.fine');
  });

  test('an inline card whose interface is link-local, and an IPv4-mapped metadata address, are refused', () => {
    const card = { ...hostile.card, supportedInterfaces: [{ url: 'http://169.254.10.1/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
    const plan = { name: 'ssrf', agents: { a: { card }, b: { url: 'http://[::ffff:a9fe:a9fe]/' } }, steps: [{ id: 'one', agent: 'a', text: 'hi' }] };
    expect(() => checkPlanSource({ plan })).toThrow(/agents\.a\.card\.supportedInterfaces\[0\]\.url: http:\/\/169\.254\.10\.1\/jsonrpc is refused: 169\.254\.10\.1 is link-local/);
    expect(() => checkPlanSource({ plan })).toThrow(/agents\.b\.url: .* is refused: 169\.254\.169\.254 \(of ::ffff:a9fe:a9fe\) is a cloud metadata address/);
  });

  test('a delegated task naming metadata.google.internal is refused before Temporal is asked', async () => {
    // No Temporal call may happen: a client whose every member throws proves it.
    const untouchable = new Proxy({}, { get: () => { throw new Error('Temporal was called'); } }) as Client;
    const e = await thrown(() =>
      startDelegatedTask(untouchable, { agent: { name: 'm', url: 'http://metadata.google.internal/computeMetadata/v1/' }, message: { text: 'hi' } }, { taskQueue: 'q' }),
    );
    expect(e).toBeInstanceOf(InvalidInputError);
    expect(e.message).toContain('agent.url: http://metadata.google.internal/computeMetadata/v1/ is refused: metadata.google.internal is a cloud metadata service');
  });

  test('loopback stays allowed without a list; a list without it refuses it', () => {
    expect(new OutboundPolicy().checkUrl('http://127.0.0.1:1/')).toBeUndefined();
    expect(new OutboundPolicy().checkUrl('http://[::1]:1/')).toBeUndefined();
    expect(new OutboundPolicy({ allow: ['agents.example.com'] }).checkUrl('http://127.0.0.1:1/')).toBe('127.0.0.1 is not in PLANNER_AGENT_ALLOW');
    expect(new OutboundPolicy({ allow: ['*.example.com'] }).checkUrl('https://a.b.example.com/')).toBeUndefined();
    expect(new OutboundPolicy({ allow: ['*.example.com'] }).checkUrl('https://example.org/')).toBe('host example.org is not in PLANNER_AGENT_ALLOW');
    expect(new OutboundPolicy({ allow: ['10.0.0.0/8'] }).checkUrl('http://10.1.2.3/')).toBeUndefined();
    // The always-refused ranges stay refused even when a list's CIDR covers them.
    expect(new OutboundPolicy({ allow: ['0.0.0.0/0'] }).checkUrl('http://169.254.169.254/')).toMatch(/metadata/);
  });

  test('a malformed list entry is named, by the policy and by the worker configuration', () => {
    expect(() => new OutboundPolicy({ allow: ['10.0.0.0/33'] })).toThrow(OutboundPolicyConfigError);
    expect(() => new OutboundPolicy({ allow: ['http://x/'] })).toThrow('entry "http://x/" is not a host name, *.suffix, IP address or CIDR');
    expect(() => loadConfig({ PLANNER_AGENT_ALLOW: 'ok.example.com, 10.0.0.0/99' })).toThrow(/PLANNER_AGENT_ALLOW.*10\.0\.0\.0\/99/);
    expect(() => loadConfig({ PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: 'http://169.254.169.254/hook/s3cret' })).toThrow(
      /PLANNER_ALERT_WEBHOOK_URL \(host 169\.254\.169\.254\) is refused: 169\.254\.169\.254 is a cloud metadata address/,
    );
    expect(() => loadConfig({ PLANNER_ALERT_SINKS: 'webhook', PLANNER_ALERT_WEBHOOK_URL: 'http://169.254.169.254/hook/s3cret' })).not.toThrow(/s3cret/);
  });
});

describe('connect time: the policy judges every address DNS gives', () => {
  test('a name that passes the edge but resolves to a refused address is refused at connect', async () => {
    const policy = new OutboundPolicy({ resolve: table({ 'rebind.test': '169.254.169.254', 'linklocal.test': 'fe80::1' }) });
    expect(policy.checkUrl(`http://rebind.test:${port}/`)).toBeUndefined();
    const transport = new HttpTransport({ policy, timeouts: TIMEOUTS });
    try {
      for (const host of ['rebind.test', 'linklocal.test']) {
        const e = await thrown(() => resolveAgentCard(`http://${host}:${port}`, { transport, agentName: 'rebound' }));
        expect(e).toBeInstanceOf(AddressRefusedError);
        expect((e as AddressRefusedError).retryable).toBe(false);
        expect(e.message).toMatch(new RegExp(`^agent rebound \\(http://${host}:${port}/\\.well-known/agent-card\\.json\\) GetAgentCard: not connecting: ${host} \\(`));
        expect(e.message).toMatch(/refused always/);
      }
    } finally {
      await transport.close();
    }
  });

  test('an allow-list admitting one host refuses another on the same address', async () => {
    const resolve = table({ 'agent-a.test': '127.0.0.1', 'agent-b.test': '127.0.0.1' });
    const policy = new OutboundPolicy({ allow: ['agent-a.test'], resolve });
    const transport = new HttpTransport({ policy, timeouts: TIMEOUTS });
    try {
      const before = hostile.requests.length;
      const card = await resolveAgentCard(`http://agent-a.test:${port}`, { transport, agentName: 'a' });
      expect(card.name).toBe('hostile');
      expect(hostile.requests.length).toBe(before + 1);
      const e = await thrown(() => resolveAgentCard(`http://agent-b.test:${port}`, { transport, agentName: 'b' }));
      expect(e).toBeInstanceOf(AddressRefusedError);
      expect(e.message).toContain('host agent-b.test is not in PLANNER_AGENT_ALLOW');
      // The card served on a refused name points its interfaces at the loopback literal: refused too.
      const viaLiteral = createA2AClient(card, { agentName: 'a', transport, timeouts: TIMEOUTS });
      const e2 = await thrown(() => viaLiteral.getTask({ id: 'task-1' }));
      expect(e2).toBeInstanceOf(AddressRefusedError);
      expect(e2.message).toContain('127.0.0.1 is not in PLANNER_AGENT_ALLOW');
      expect(hostile.requests.length).toBe(before + 1);
    } finally {
      await transport.close();
    }
  });

  test('a redirect, to a refused address or to an allowed one, is never followed', async () => {
    const transport = new HttpTransport({ timeouts: TIMEOUTS });
    try {
      for (const location of ['http://169.254.169.254/latest/meta-data/iam', `${bystanderUrl}/.well-known/agent-card.json`]) {
        hostile.setMode('custom', { status: 302, headers: { location }, body: '' });
        const client = createA2AClient(hostile.card as never, { agentName: 'redirector', transport, timeouts: TIMEOUTS });
        const e = await thrown(() => client.getTask({ id: 'task-1' }));
        expect(e).toBeInstanceOf(HttpStatusError);
        expect((e as HttpStatusError).status).toBe(302);
        expect((e as HttpStatusError).retryable).toBe(false);
        expect(e.message).toContain(`redirects are not followed; Location: ${new URL(location).toString()}`);
      }
      expect(bystanderHits).toBe(0);
    } finally {
      await transport.close();
    }
  });

  test('the alert webhook is under the same policy: an address off the list is refused at connect', async () => {
    const saved = process.env.PLANNER_AGENT_ALLOW;
    process.env.PLANNER_AGENT_ALLOW = 'hooks.example.com';
    try {
      const alert = createAlertOperator({ sinks: ['webhook'], webhookUrl: `${bystanderUrl}/hook/s3cret-path`, namespace: 'default' }, pino({ level: 'silent' }));
      const e = await thrown(() => alert({ kind: 'input', workflowId: 'w', agent: 'a', taskId: 't', text: 'q?', idempotencyKey: 'k' }));
      expect(e).toMatchObject({ type: 'AddressRefusedError', nonRetryable: true });
      expect(e.message).toContain('127.0.0.1 is not in PLANNER_AGENT_ALLOW');
      expect(e.message).not.toContain('s3cret-path');
      expect(bystanderHits).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.PLANNER_AGENT_ALLOW;
      else process.env.PLANNER_AGENT_ALLOW = saved;
    }
  });
});

describe('caps on what is read from agents', () => {
  test('an agent card over 1 MiB is refused, naming the agent and the limit', async () => {
    hostile.setCard({ ...hostile.card, description: 'x'.repeat(1024 * 1024 + 10) });
    const e = await thrown(() => resolveAgentCard(hostile.baseUrl, { agentName: 'bigcard', timeouts: TIMEOUTS }));
    expect(e).toBeInstanceOf(InvalidAgentResponseError);
    expect((e as InvalidAgentResponseError).retryable).toBe(false);
    expect(e.message).toMatch(/^agent bigcard \(.*\) GetAgentCard: response body larger than 1048576 bytes/);
  });

  test('a stream is capped in all, not only per event', async () => {
    const client = await connectA2A(hostile.baseUrl, { agentName: 'chatty', timeouts: TIMEOUTS, maxStreamBytes: 200 });
    try {
      hostile.setMode('sse-ok');
      const e = await thrown(() => collect(client.subscribeToTask({ id: 'task-1' })));
      expect(e).toBeInstanceOf(InvalidAgentResponseError);
      expect((e as InvalidAgentResponseError).retryable).toBe(false);
      expect(e.message).toMatch(/^agent chatty .* SubscribeToTask: stream larger than 200 bytes in all \(maxStreamBytes\)/);
      // The same stream under the default cap goes through.
      const frames = await collect(client.subscribeToTask({ id: 'task-1' }, { maxStreamBytes: 1024 * 1024 }));
      expect(frames.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  test('a response body over the cap is refused, naming the agent and the limit', async () => {
    const client = await connectA2A(hostile.baseUrl, { agentName: 'wordy', timeouts: TIMEOUTS, maxResponseBytes: 4096 });
    try {
      hostile.setMode('custom', { status: 200, contentType: 'application/json', body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { pad: 'y'.repeat(10_000) } }) });
      const e = await thrown(() => client.getTask({ id: 'task-1' }));
      expect(e).toBeInstanceOf(InvalidAgentResponseError);
      expect(e.message).toMatch(/^agent wordy .* GetTask: response body larger than 4096 bytes/);
      void userMessage;
    } finally {
      await client.close();
    }
  });
});
