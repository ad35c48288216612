// Trust boundaries on the way out and at the edges (issue 19, items 5 and 6): what an internal
// service answers is never read back; "this host" and every IPv6 form of a refused IPv4 address
// are refused; plan files (and their card files) resolve inside PLANNER_PLAN_DIR after symlinks and
// no error shows a server path; a webhook URL carrying a query is refused; the card's URLs come from
// PLANNER_PUBLIC_URL (else Vary: Host); /readyz checks Temporal and names no address; a terminal
// state that arrives by push is confirmed with GetTask. On the real dev server, real loopback servers.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { AddressRefusedError, HttpTransport, OutboundPolicy, createA2AClient, resolveAgentCard } from '../a2a';
import { pushToken, pushUrl } from '../activities/push-token';
import { loadConfig } from '../runtime/config';
import { startServer, type RunningServer } from '../server/main';
import { startPushReceiver, type PushReceiver } from '../server/push/standalone';
import { startDeployer, type AgentHandle } from './agents';
import { apiEnv, call, startApi } from './support/api';
import { DEPLOY, waitForStatus } from './support/delegated';
import { scratchDir } from './support/scratch';
import { refusingPort } from './support/refusing-port';
import { itReplaysItsHistories, plannerSuite } from './support/suite';
import { eventually } from './support/wait';
import { statusQuery } from '../workflows/delegated-task/messages';

const SECRET = 'trust-outbound-secret-0123456789';
const INTERNAL_SECRET = 'INTERNAL-ONLY root:x:0:0:root:/root:/bin/bash';
const TIMEOUTS = { connectMs: 1000, headersMs: 2000, bodyMs: 2000, streamIdleMs: 2000 };

let receiver: PushReceiver;
let deployer: AgentHandle;
const suite = plannerSuite('trust-outbound', async (s) => {
  receiver = await startPushReceiver({ temporal: s.client, secret: SECRET, logger: pino({ level: 'silent' }) });
  deployer = await startDeployer({ pushNotifications: true });
  return { PLANNER_WEBHOOK_BASE_URL: receiver.url, PLANNER_WEBHOOK_SECRET: SECRET };
});

/** An internal HTTP service: it must never be reached through a refused address, nor read back. */
let internal: Server;
let internalPort: number;
let internalHits = 0;
/** The plan folder of the API below, and a folder beside it that its links lead into. */
let planDir: string;
let outsideDir: string;
let api: RunningServer;

beforeAll(async () => {
  internal = createServer((_req, res) => {
    internalHits++;
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`${INTERNAL_SECRET}\n`.repeat(10));
  });
  await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
  internalPort = (internal.address() as AddressInfo).port;

  const root = scratchDir('trust-outbound');
  planDir = join(root, 'plans');
  outsideDir = join(root, 'outside');
  mkdirSync(planDir);
  mkdirSync(outsideDir);
  const plan = (name: string, agent: Record<string, unknown>): string =>
    JSON.stringify({ name, agents: { a: agent }, steps: [{ id: 's', agent: 'a', text: 'hello' }] });
  writeFileSync(join(outsideDir, 'secret.json'), `${INTERNAL_SECRET}\n`);
  writeFileSync(join(outsideDir, 'outside-plan.json'), plan('outside-plan', { url: 'http://127.0.0.1:9' }));
  symlinkSync(join(outsideDir, 'outside-plan.json'), join(planDir, 'leads-out.json'));
  writeFileSync(join(planDir, 'card-out.json'), plan('card-out', { card: '../outside/secret.json' }));
  symlinkSync(join(outsideDir, 'secret.json'), join(planDir, 'card-link.json'));
  writeFileSync(join(planDir, 'card-via-link.json'), plan('card-via-link', { card: 'card-link.json' }));
  api = await startApi(suite.client, suite.queue, { PLANNER_PLAN_DIR: planDir, PLANNER_WEBHOOK_SECRET: SECRET });
});

afterAll(async () => {
  await api?.close();
  await Promise.all([receiver?.close(), deployer?.close(), new Promise((r) => internal?.close(r))]);
});

const V1 = { 'a2a-version': '1.0' };
const rpc = (method: string, params: unknown) => call(api.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method, params }, headers: V1 });
const errOf = (c: { body: unknown }): { code: number; message: string } => (c.body as { error: { code: number; message: string } }).error;

/** Nothing of the scratch folders' absolute paths, nor of the secret file, in what a caller gets. */
function expectNoServerPath(text: string): void {
  expect(text).not.toContain(planDir);
  expect(text).not.toContain(outsideDir);
  expect(text).not.toContain('INTERNAL-ONLY');
}

it('1. an answer that is not A2A is described by status, content type and size, never quoted', async () => {
  const card = {
    name: 'internal',
    description: 'an inline card pointing at an internal service',
    version: '1',
    supportedInterfaces: [{ url: `http://127.0.0.1:${internalPort}/admin`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const client = createA2AClient(card as never, { agentName: 'internal', timeouts: TIMEOUTS });
  try {
    const e = await client.getTask({ id: 'task-1' }).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(e?.name).toBe('HttpStatusError');
    expect(e!.message).not.toContain('INTERNAL-ONLY');
    expect(e!.message).not.toContain('root:');
    expect(e!.message).toMatch(/HTTP 404 .*text\/plain, \d+ bytes; not shown/);
  } finally {
    await client.close();
  }
});

describe('2. the outbound policy', () => {
  const policy = new OutboundPolicy();
  test.each([
    ['0.0.0.0', /"this host"/],
    ['0', /"this host"/],
    ['[::]', /"this host"/],
    ['168.63.129.16', /cloud metadata address/],
    ['[::ffff:169.254.169.254]', /cloud metadata address/],
    ['[::ffff:0:169.254.169.254]', /SIIT .* of 169\.254\.169\.254, which is a cloud metadata address/],
    ['[::169.254.169.254]', /IPv4-compatible .* of 169\.254\.169\.254/],
    ['[64:ff9b::169.254.169.254]', /NAT64 \(64:ff9b::\/96\) form of 169\.254\.169\.254/],
    ['[64:ff9b:1::a9fe:a9fe]', /NAT64 \(64:ff9b:1::\/48\) form of 169\.254\.169\.254/],
    ['[64:ff9b:1:a9fe:a9:fe00::]', /NAT64 \(64:ff9b:1::\/48\) form of 169\.254\.169\.254/],
    ['[64:ff9b::a9fe:102]', /NAT64 .* of 169\.254\.1\.2, which is link-local/],
    ['[2002:a9fe:a9fe::1]', /6to4 \(2002::\/16\) form of 169\.254\.169\.254/],
    ['[2001:0:4136:e378:8000:63bf:5601:5601]', /Teredo \(2001::\/32\) client form of 169\.254\.169\.254/],
    ['[64:ff9b::0.0.0.0]', /NAT64 .* of 0\.0\.0\.0, which is "this host"/],
    ['[2002:a83f:8110::]', /6to4 .* of 168\.63\.129\.16/],
  ])('refuses http://%s/', (host, why) => {
    expect(policy.checkUrl(`http://${host}/`)).toMatch(why);
    expect(policy.checkUrl(`http://${host}/`)).toMatch(/refused always/);
  });

  test.each(['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[64:ff9b::808:808]', '[64:ff9b:1::808:808]', '[64:ff9b:1:808:8:800::]', '[2002:808:808::1]', '[2001:db8::1]', 'agents.example.com'])('allows http://%s/', (host) => {
    expect(policy.checkUrl(`http://${host}/`)).toBeUndefined();
  });

  test('at connect time, a name resolving to a NAT64 form of the metadata address is refused too', () => {
    const embedded = new OutboundPolicy({ resolve: (_h, _o, cb) => cb(null, [{ address: '64:ff9b::a9fe:a9fe', family: 6 }]) });
    expect(embedded.checkAddress('nat64.test', '64:ff9b::a9fe:a9fe')).toMatch(/of nat64\.test\) is the NAT64/);
  });

  test('a real connect to 0.0.0.0 (the planner itself) is refused before the socket opens', async () => {
    const transport = new HttpTransport({ timeouts: TIMEOUTS });
    const before = internalHits;
    try {
      const e = await resolveAgentCard(`http://0.0.0.0:${internalPort}`, { transport, agentName: 'self' }).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(e).toBeInstanceOf(AddressRefusedError);
      expect(e!.message).toMatch(/0\.0\.0\.0 is "this host"/);
      expect(internalHits).toBe(before);
    } finally {
      await transport.close();
    }
  });
});

describe('3. plan files resolve inside PLANNER_PLAN_DIR after symlinks, and no error shows a server path', () => {
  test('the face: a symlinked plan file that leads out is no skill', async () => {
    const card = (await call(api.url, 'GET', '/.well-known/agent-card.json', { token: null })).body as { skills: Array<{ id: string }> };
    const ids = card.skills.map((s) => s.id);
    expect(ids).toEqual(expect.arrayContaining(['card-out', 'card-via-link']));
    expect(ids).not.toContain('outside-plan');
    const e = errOf(await rpc('SendMessage', { message: { messageId: 'm-out', role: 'ROLE_USER', parts: [{ text: 'go' }], metadata: { skill: 'outside-plan' } } }));
    expect(e.code).toBe(-32602);
    expectNoServerPath(e.message);
  });

  test.each(['card-out', 'card-via-link'])('the face: a card file outside the folder (%s) is refused, naming it relative to the folder', async (skill) => {
    const e = errOf(await rpc('SendMessage', { message: { messageId: `m-${skill}`, role: 'ROLE_USER', parts: [{ text: 'go' }], metadata: { skill } } }));
    expect(e.code).toBe(-32602);
    expectNoServerPath(e.message);
    expect(e.message).toMatch(/agents\.a\.card: the card file (\.\.\/outside\/secret\.json|card-link\.json) does not exist inside the plan folder/);
  });

  test('the API and schedules: the same files are refused, with relative names only', async () => {
    for (const planFile of ['leads-out.json', 'card-out.json', 'card-via-link.json', 'missing.json']) {
      const started = await call(api.url, 'POST', '/v1/plans', { body: { planFile } });
      expect({ planFile, status: started.status }).toEqual({ planFile, status: 400 });
      expect(started.body).toMatchObject({ error: { details: [{ path: 'body.planFile' }] } });
      expectNoServerPath(started.text);
      const scheduled = await call(api.url, 'POST', '/v1/schedules', { body: { scheduleId: `trust-${planFile.replace('.', '-')}`, every: '1h', planFile } });
      expect({ planFile, status: scheduled.status }).toEqual({ planFile, status: 400 });
      expectNoServerPath(scheduled.text);
    }
  });
});

it('4. a webhook URL with a query (where secrets hide) is refused, naming url', async () => {
  const e = errOf(
    await rpc('SendMessage', {
      message: { messageId: 'm-hook', role: 'ROLE_USER', parts: [{ text: 'go' }], metadata: { skill: 'card-out' } },
      configuration: { taskPushNotificationConfig: { url: `http://127.0.0.1:${internalPort}/hook?token=hook-secret` } },
    }),
  );
  expect(e.code).toBe(-32602);
  expect(e.message).toMatch(/configuration\.taskPushNotificationConfig\.url: a URL with a query is refused/);
  expect(e.message).not.toContain('hook-secret');
});

/** GET with a Host header of our choosing (fetch does not let a caller set Host). */
function getWithHost(base: string, path: string, host: string): Promise<{ headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

it("5. the card's URLs come from PLANNER_PUBLIC_URL; without it the card says Vary: Host", async () => {
  const fromHost = await getWithHost(api.url, '/.well-known/agent-card.json', 'evil.example:1234');
  expect(String(fromHost.headers.vary)).toMatch(/\bHost\b/i);
  const configured = await startApi(suite.client, suite.queue, { PLANNER_PLAN_DIR: planDir, PLANNER_PUBLIC_URL: 'https://planner.example.com/' });
  try {
    const got = await getWithHost(configured.url, '/.well-known/agent-card.json', 'evil.example:1234');
    const card = JSON.parse(got.body) as { supportedInterfaces: Array<{ url: string }> };
    // v1.0's two interfaces, then v0.3's on the same URLs (the v0.3 card, served without A2A-Version, lists all four).
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual(['https://planner.example.com/a2a/jsonrpc', 'https://planner.example.com/a2a/rest', 'https://planner.example.com/a2a/jsonrpc', 'https://planner.example.com/a2a/rest']);
    expect(got.body).not.toContain('evil.example');
  } finally {
    await configured.close();
  }
  expect(() => loadConfig(apiEnv(suite.queue, { PLANNER_PUBLIC_URL: 'https://planner.example.com/?x=1' }))).toThrow(/PLANNER_PUBLIC_URL/);
});

it('6. /readyz checks Temporal, a read while Temporal is down is a 503 (not a 500), and no 503 names its address; /healthz is liveness', async () => {
  expect((await call(api.url, 'GET', '/readyz', { token: null })).body).toEqual({ ready: true });
  const closed = await refusingPort();
  const nowhere = `127.0.0.1:${closed.port}`;
  const connection = Connection.lazy({ address: nowhere });
  const temporal = new Client({ connection, namespace: 'default' });
  const down = await startServer({ config: loadConfig(apiEnv(suite.queue, { TEMPORAL_ADDRESS: nowhere })), temporal, logger: pino({ level: 'silent' }), port: 0 });
  try {
    const health = await call(down.url, 'GET', '/healthz', { token: null });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ ok: true });
    const ready = await call(down.url, 'GET', '/readyz', { token: null });
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ error: { code: 'unavailable', message: expect.stringContaining('not ready') } });
    const read = await call(down.url, 'GET', '/v1/plans');
    expect(read.status).toBe(503); // not a 500
    expect(read.body).toMatchObject({ error: { code: 'unavailable', message: expect.stringContaining('Temporal did not answer') } });
    for (const text of [ready.text, read.text]) {
      expect(text).not.toContain(nowhere);
      expect(text).not.toContain(nowhere.split(':')[1]!);
    }
  } finally {
    await down.close();
    await connection.close().catch(() => undefined);
    await closed.close();
  }
});

it('7. a terminal state that arrives by push alone does not end the task: GetTask decides', async () => {
  const handle = await suite.start({ agent: { name: 'deployer', url: deployer.baseUrl }, message: { text: DEPLOY }, policies: { watch: { pushBackstop: '60s' } } });
  const s = await waitForStatus(handle, (x) => x.waitingOn === 'operator', 'AUTH_REQUIRED');
  const taskId = s.taskId!;
  await eventually(() => deployer.log.requests.some((r) => r.method === 'CreateTaskPushNotificationConfig' && r.taskId === taskId) || undefined, 'the push config');
  const gets = (): number => deployer.log.requests.filter((r) => r.method === 'GetTask' && r.taskId === taskId).length;
  const getsBefore = gets();
  // A forged push (the per-task token made with the webhook secret): COMPLETED while the approval waits.
  const forged = await fetch(pushUrl(receiver.url, handle.workflowId, taskId), {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', 'x-a2a-notification-token': pushToken(SECRET, handle.workflowId, taskId) },
    body: JSON.stringify({ statusUpdate: { taskId, contextId: s.contextId, status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() } } }),
  });
  expect(forged.status).toBe(204);
  const ended = await Promise.race([handle.result().then((r) => `ended ${r.state}`), new Promise((r) => setTimeout(() => r('still running'), 3000))]);
  expect(ended).toBe('still running');
  expect((await handle.query(statusQuery)).state).toBe('TASK_STATE_AUTH_REQUIRED');
  expect(gets()).toBeGreaterThan(getsBefore); // the agent was asked, and said AUTH_REQUIRED

  // The real approval still ends it, as the agent says.
  await deployer.approve(taskId);
  expect((await handle.result()).state).toBe('TASK_STATE_COMPLETED');
});

itReplaysItsHistories(suite);
