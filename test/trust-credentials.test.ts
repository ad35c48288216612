// Agents and their credentials are the operator's (issue 19, item 1). Real agents on loopback record
// every header they receive; two of them hold configured credentials, a third (the suite's "thief")
// is an agent a hostile caller points plans at. Hostile plans arrive on every surface: a plan
// document on POST /v1/plans and /v1/schedules, a data part on the A2A face, agentUrls on the
// operator's plan file, an inline card, a card that points its interfaces elsewhere, credentialEnv
// naming the webhook secret or the credentials JSON. The thief must never receive a configured
// credential or a worker variable, every refusal must name its field and setting, and the operator's
// own plans must still deliver each credential to its own origin.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { RunningServer } from '../server/main';
import { startHostileAgent, type HostileAgent } from './a2a/hostile-agent';
import { startExporter, type AgentHandle } from './agents';
import { call, startApi } from './support/api';
import { scratchDir } from './support/scratch';
import { itReplaysItsHistories, plannerSuite } from './support/suite';

const REVIEWER_TOKEN = 'trust-reviewer-bearer-5f1c9e';
const DEPLOYER_KEY = 'trust-deployer-apikey-8a2e7d';
const AUDITOR_TOKEN = 'trust-auditor-bearer-3b6d0a';
const MIRROR_TOKEN = 'trust-mirror-bearer-9c4f1b';
const OPS_TOKEN = 'trust-ops-variable-token-2e8a';
const WEBHOOK_SECRET = 'trust-webhook-secret-7d1f3c5a';
const SECRETS = { REVIEWER_TOKEN, DEPLOYER_KEY, AUDITOR_TOKEN, MIRROR_TOKEN, OPS_TOKEN, WEBHOOK_SECRET };

const suite = plannerSuite('trust-credentials');
let reviewer: AgentHandle;
let deployer: AgentHandle;
let thief: AgentHandle;
/** Serves a card at its own origin whose interfaces point at the thief. */
let mirror: HostileAgent;
let api: RunningServer;
let apiAny: RunningServer;
const saved: Record<string, string | undefined> = {};
const WORKER_VARIABLES = ['A2A_AGENT_CREDENTIALS', 'PLANNER_AGENT_TOKEN_OPS', 'PLANNER_WEBHOOK_SECRET'];

const origin = (u: string): string => new URL(u).origin;
const textStep = (agent: string, id = 'one') => ({ id, agent, text: 'export it' });

beforeAll(async () => {
  [reviewer, deployer, thief] = await Promise.all([startExporter(), startExporter(), startExporter()]);
  mirror = await startHostileAgent();
  mirror.setCard({ ...(thief.card as Record<string, unknown>), name: 'mirror' });
  // The in-process workers read these from the process (by agent name, each credential bound to its origins).
  for (const v of WORKER_VARIABLES) saved[v] = process.env[v];
  process.env.A2A_AGENT_CREDENTIALS = JSON.stringify({
    reviewer: { bearer: REVIEWER_TOKEN, origins: [origin(reviewer.baseUrl)] },
    deployer: { apiKey: { header: 'X-Api-Key', value: DEPLOYER_KEY }, origins: [origin(deployer.baseUrl)] },
    // Configured but not registered: an agent a caller names "auditor" at its very origin still gets nothing.
    auditor: { bearer: AUDITOR_TOKEN, origins: [origin(reviewer.baseUrl)] },
    mirror: { bearer: MIRROR_TOKEN, origins: [origin(mirror.baseUrl)] },
  });
  process.env.PLANNER_AGENT_TOKEN_OPS = OPS_TOKEN;
  process.env.PLANNER_WEBHOOK_SECRET = WEBHOOK_SECRET;

  const planDir = scratchDir('trust-plans');
  const operatorPlan = {
    name: 'ops',
    agents: {
      reviewer: { url: reviewer.baseUrl },
      deployer: { url: deployer.baseUrl },
      ops: { url: reviewer.baseUrl, credentialEnv: 'PLANNER_AGENT_TOKEN_OPS' },
    },
    steps: [textStep('reviewer', 'review'), textStep('deployer', 'deploy'), textStep('ops', 'ops')],
  };
  writeFileSync(join(planDir, 'ops.json'), JSON.stringify(operatorPlan));
  // The operator's own agent whose card (fetched at the credential's origin) points its interfaces at the thief.
  writeFileSync(join(planDir, 'mirror.json'), JSON.stringify({ name: 'mirror', agents: { mirror: { url: mirror.baseUrl } }, steps: [textStep('mirror')] }));
  const registered = JSON.stringify({ reviewer: reviewer.baseUrl, deployer: deployer.baseUrl });
  const env = { PLANNER_PLAN_DIR: planDir, PLANNER_AGENTS: registered };
  // `api` runs with the default of planner serve (PLANNER_CALLER_AGENTS empty, that is unset: registered).
  [api, apiAny] = await Promise.all([
    startApi(suite.client, suite.queue, { ...env, PLANNER_CALLER_AGENTS: '' }),
    startApi(suite.client, suite.queue, { ...env, PLANNER_CALLER_AGENTS: 'any' }),
  ]);
});

afterAll(async () => {
  await Promise.all([api?.close(), apiAny?.close()]);
  await Promise.all([reviewer?.close(), deployer?.close(), thief?.close(), mirror?.close()]);
  for (const v of WORKER_VARIABLES) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

/** Every header value an agent received, from its card request on. */
const headerValues = (a: AgentHandle): string[] => a.log.received.flatMap((r) => Object.values(r.headers).flat().filter((v): v is string => typeof v === 'string'));
const received = (a: AgentHandle, secret: string): boolean => headerValues(a).some((v) => v.includes(secret));

/** Runs a plan to its end: its result, or the failure. */
async function finished(planId: string): Promise<unknown> {
  suite.track(planId);
  return suite.client.workflow.getHandle(planId).result().catch((e: unknown) => e);
}

async function startedOn(server: RunningServer, body: unknown): Promise<string> {
  const r = await call(server.url, 'POST', '/v1/plans', { body });
  expect(r.status).toBe(201);
  return (r.body as { planId: string }).planId;
}

function face(server: RunningServer, plan: unknown): Promise<{ body: unknown }> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'run this' }, { data: { plan } }] };
  return call(server.url, 'POST', '/a2a/jsonrpc', { body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }, headers: { 'a2a-version': '1.0' } });
}

const detailsOf = (r: { body: unknown }): Array<{ path: string; message: string }> => (r.body as { error: { details: Array<{ path: string; message: string }> } }).error.details;

describe("the operator's plans deliver each credential to its own origin", () => {
  it('a plan file: the configured bearer and API key and the credentialEnv token, each only where it belongs', async () => {
    const planId = await startedOn(api, { planFile: 'ops.json' });
    expect(await finished(planId)).not.toBeInstanceOf(Error);
    expect(received(reviewer, `Bearer ${REVIEWER_TOKEN}`)).toBe(true);
    expect(received(reviewer, `Bearer ${OPS_TOKEN}`)).toBe(true);
    expect(deployer.log.received.some((r) => r.headers['x-api-key'] === DEPLOYER_KEY)).toBe(true);
    for (const s of [REVIEWER_TOKEN, OPS_TOKEN, AUDITOR_TOKEN]) expect(received(deployer, s)).toBe(false);
    expect(received(reviewer, DEPLOYER_KEY)).toBe(false);
  });

  it('a card fetched at the credential origin that points its interfaces elsewhere: the card request carries it, the thief does not', async () => {
    const planId = await startedOn(api, { planFile: 'mirror.json' });
    expect(await finished(planId)).not.toBeInstanceOf(Error);
    expect(mirror.requests.some((r) => r.headers.authorization === `Bearer ${MIRROR_TOKEN}`)).toBe(true);
    expect(thief.log.received.some((r) => r.path.includes('jsonrpc'))).toBe(true);
    expect(received(thief, MIRROR_TOKEN)).toBe(false);
  });

  it("a caller's plan names the operator's registered agents by name, and their credentials go to their origins", async () => {
    const before = reviewer.log.received.length;
    const planId = await startedOn(api, { plan: { name: 'by-name', agents: { reviewer: {}, deployer: {} }, steps: [textStep('reviewer', 'a'), textStep('deployer', 'b')] } });
    expect(await finished(planId)).not.toBeInstanceOf(Error);
    expect(reviewer.log.received.slice(before).some((r) => r.headers.authorization === `Bearer ${REVIEWER_TOKEN}`)).toBe(true);
  });
});

describe('hostile plans on every surface are refused, naming the field and the setting (PLANNER_CALLER_AGENTS=registered)', () => {
  const hostile = () => ({
    'a registered name at its own URL': {
      plan: { name: 'h1', agents: { deployer: { url: thief.baseUrl } }, steps: [textStep('deployer')] },
      field: 'agents.deployer.url',
      says: 'is an agent the operator registered (PLANNER_AGENTS)',
    },
    'an agent of its own by URL': {
      plan: { name: 'h2', agents: { mine: { url: thief.baseUrl } }, steps: [textStep('mine')] },
      field: 'agents.mine.url',
      says: 'PLANNER_CALLER_AGENTS=registered',
    },
    'an inline card pointing at the thief under a registered name': {
      plan: { name: 'h3', agents: { reviewer: { card: thief.card } }, steps: [textStep('reviewer')] },
      field: 'agents.reviewer.card',
      says: 'is an agent the operator registered',
    },
    'credentialEnv naming the webhook secret': {
      plan: { name: 'h4', agents: { reviewer: { credentialEnv: 'PLANNER_WEBHOOK_SECRET' } }, steps: [textStep('reviewer')] },
      field: 'agents.reviewer.credentialEnv',
      says: "only the operator's plan files may name a credential variable",
    },
    'credentialEnv naming the credentials JSON': {
      plan: { name: 'h5', agents: { reviewer: { credentialEnv: 'A2A_AGENT_CREDENTIALS' } }, steps: [textStep('reviewer')] },
      field: 'agents.reviewer.credentialEnv',
      says: "only the operator's plan files may name a credential variable",
    },
    'an agent nobody registered, by name': {
      plan: { name: 'h6', agents: { auditor: {} }, steps: [textStep('auditor')] },
      field: 'agents.auditor',
      says: 'is not one the operator registered (PLANNER_AGENTS; registered: reviewer, deployer)',
    },
  });

  it('POST /v1/plans: 400 naming body.plan.<field>', async () => {
    for (const [what, h] of Object.entries(hostile())) {
      const r = await call(api.url, 'POST', '/v1/plans', { body: { plan: h.plan } });
      expect([what, r.status]).toEqual([what, 400]);
      expect(detailsOf(r)).toEqual(expect.arrayContaining([{ path: `body.plan.${h.field}`, message: expect.stringContaining(h.says) }]));
    }
    // credentialEnv is refused on `any` too: it is the operator's alone.
    const r = await call(apiAny.url, 'POST', '/v1/plans', { body: { plan: hostile()['credentialEnv naming the webhook secret'].plan } });
    expect(r.status).toBe(400);
    expect(r.text).toContain('body.plan.agents.reviewer.credentialEnv');
  });

  it('POST /v1/schedules: 400 naming the field', async () => {
    for (const [what, h] of Object.entries(hostile())) {
      const r = await call(api.url, 'POST', '/v1/schedules', { body: { scheduleId: `trust-${randomUUID().slice(0, 8)}`, every: '1h', plan: h.plan } });
      expect([what, r.status]).toEqual([what, 400]);
      expect(r.text).toContain(h.field);
      expect(r.text).toContain(h.says);
    }
  });

  it('the A2A face: -32602 naming the data part and the field', async () => {
    for (const [what, h] of Object.entries(hostile())) {
      const r = await face(api, h.plan);
      expect([what, r.body]).toEqual([what, expect.objectContaining({ error: expect.objectContaining({ code: -32602, message: expect.stringContaining(h.says) }) })]);
      expect((r.body as { error: { message: string } }).error.message).toContain(`message.parts[1].data.plan`);
      expect((r.body as { error: { message: string } }).error.message).toContain(h.field);
    }
  });

  it("agentUrls on the operator's plan file: refused for a caller, naming agentUrls and the setting", async () => {
    const r = await call(api.url, 'POST', '/v1/plans', { body: { planFile: 'ops.json', agentUrls: { deployer: thief.baseUrl } } });
    expect(r.status).toBe(400);
    expect(r.text).toContain('agentUrls.deployer: a caller may not choose an agent');
    expect(r.text).toContain('PLANNER_CALLER_AGENTS=registered');
    const s = await call(api.url, 'POST', '/v1/schedules', { body: { scheduleId: 'trust-urls', every: '1h', planFile: 'ops.json', agentUrls: { reviewer: thief.baseUrl } } });
    expect(s.status).toBe(400);
    expect(s.text).toContain('agentUrls.reviewer');
  });
});

describe('with PLANNER_CALLER_AGENTS=any, agents a caller names run but get no credential', () => {
  it('its own agent by URL, and one named after a configured (unregistered) credential at that credential origin', async () => {
    const before = reviewer.log.received.length;
    const planId = await startedOn(apiAny, {
      plan: { name: 'own', agents: { mine: { url: thief.baseUrl }, auditor: { url: reviewer.baseUrl } }, steps: [textStep('mine', 'a'), textStep('auditor', 'b')] },
    });
    expect(await finished(planId)).not.toBeInstanceOf(Error);
    expect(reviewer.log.received.length).toBeGreaterThan(before);
    expect(reviewer.log.received.slice(before).some((r) => r.headers.authorization !== undefined)).toBe(false);
  });

  it('an inline card of its own, pointing at the thief', async () => {
    const planId = await startedOn(apiAny, { plan: { name: 'card', agents: { carded: { card: thief.card } }, steps: [textStep('carded')] } });
    expect(await finished(planId)).not.toBeInstanceOf(Error);
  });

  it("agentUrls moving the operator's agents to the thief: they run there without credentials; the credentialEnv agent cannot move", async () => {
    const moved = await call(apiAny.url, 'POST', '/v1/plans', { body: { planFile: 'ops.json', agentUrls: { ops: thief.baseUrl } } });
    expect(moved.status).toBe(400);
    expect((moved.body as { error: { message: string } }).error.message).toContain(`agentUrls.ops: ${origin(thief.baseUrl)} is not the origin the plan names for agent "ops", and its credentialEnv token goes only there`);
    const before = thief.log.received.length;
    const planId = await startedOn(apiAny, { planFile: 'ops.json', agentUrls: { reviewer: thief.baseUrl, deployer: thief.baseUrl } });
    expect(await finished(planId)).not.toBeInstanceOf(Error);
    expect(thief.log.received.length).toBeGreaterThan(before);
  });

  it('a registered name is still not a caller’s to reuse; credentialEnv still refused on the face', async () => {
    const r = await face(apiAny, { name: 'h', agents: { deployer: { url: thief.baseUrl } }, steps: [textStep('deployer')] });
    expect(JSON.stringify(r.body)).toContain('agents.deployer.url: \\"deployer\\" is an agent the operator registered');
    const e = await face(apiAny, { name: 'h', agents: { mine: { url: thief.baseUrl, credentialEnv: 'PLANNER_AGENT_TOKEN_OPS' } }, steps: [textStep('mine')] });
    expect(e.body).toMatchObject({ error: { code: -32602, message: expect.stringContaining('agents.mine.credentialEnv') } });
  });
});

it('the worker refuses a credentialEnv outside PLANNER_AGENT_TOKEN_* even when a workflow carries one', async () => {
  for (const variable of ['PLANNER_WEBHOOK_SECRET', 'A2A_AGENT_CREDENTIALS']) {
    const before = thief.log.received.length;
    const handle = await suite.start({ agent: { name: 'sneaky', url: thief.baseUrl, credentialEnv: variable }, message: { text: 'hi' } });
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    let cause: unknown = err;
    let text = '';
    while (cause instanceof Error) {
      text += `${cause.message}\n`;
      cause = cause.cause;
    }
    expect(text).toContain(`agent sneaky: credentialEnv: ${variable} is not a credential variable`);
    expect(thief.log.received.length).toBe(before);
  }
});

it('the thief never received a configured credential or a worker variable', () => {
  expect(thief.log.received.length).toBeGreaterThan(0);
  const leaked = Object.entries(SECRETS).filter(([, s]) => received(thief, s));
  expect(leaked.map(([name]) => name)).toEqual([]);
  expect(headerValues(thief).some((v) => /^bearer /i.test(v))).toBe(false);
  expect(thief.log.received.some((r) => r.headers['x-api-key'] !== undefined)).toBe(false);
});

itReplaysItsHistories(suite);
