/** Per-agent credentials: configuration parsing, their binding to origins on the wire, and keeping them out of logs. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../support/scratch';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createA2AClient, credentialEnvProblem, credentialFromVariable, credentialsFor, redactPaths, redactPathsForHeaders, resolveAgentCard } from '../../a2a';
import { startHostileAgent } from './hostile-agent';
import { thrown, userMessage } from './helpers';

const O = 'http://127.0.0.1:41243';
const env = (json: unknown): NodeJS.ProcessEnv => ({ A2A_AGENT_CREDENTIALS: typeof json === 'string' ? json : JSON.stringify(json) });

describe('credentialsFor', () => {
  test('bearer and API key by agent name, each with its origins (normalised); nothing for others', () => {
    const e = env({
      deployer: { bearer: 'tok-1', origins: ['https://Deploy.Example.com:443', 'http://127.0.0.1:41243/'] },
      search: { apiKey: { header: 'X-Api-Key', value: 'key-2' }, origins: ['http://127.0.0.1:41241'] },
    });
    expect(credentialsFor('deployer', e)).toEqual({ type: 'bearer', token: 'tok-1', origins: ['https://deploy.example.com', 'http://127.0.0.1:41243'] });
    expect(credentialsFor('search', e)).toEqual({ type: 'apiKey', header: 'X-Api-Key', value: 'key-2', origins: ['http://127.0.0.1:41241'] });
    expect(credentialsFor('other', e)).toBeUndefined();
    expect(credentialsFor('constructor', e)).toBeUndefined();
    expect(credentialsFor('deployer', {})).toBeUndefined();
  });

  test('credentialEnv reads only PLANNER_AGENT_TOKEN_* variables, naming any other', () => {
    const workerEnv = { PLANNER_AGENT_TOKEN_DEPLOYER: 'tok-3', PLANNER_WEBHOOK_SECRET: 'super-secret-1' };
    expect(credentialFromVariable('deployer', 'PLANNER_AGENT_TOKEN_DEPLOYER', ['http://127.0.0.1:1'], workerEnv)).toEqual({ type: 'bearer', token: 'tok-3', origins: ['http://127.0.0.1:1'] });
    for (const variable of ['PLANNER_WEBHOOK_SECRET', 'A2A_AGENT_CREDENTIALS', 'PLANNER_AGENT_TOKEN_', 'HOME']) {
      expect(credentialEnvProblem(variable)).toContain(`${variable} is not a credential variable`);
      const e = (() => {
        try {
          credentialFromVariable('deployer', variable, ['http://127.0.0.1:1'], workerEnv);
        } catch (err) {
          return err as Error;
        }
        throw new Error('expected an error');
      })();
      expect(e.name).toBe('CredentialsConfigError');
      expect(e.message).toContain(`agent deployer: credentialEnv: ${variable} is not a credential variable`);
      expect(e.message).not.toContain('super-secret-1');
    }
  });

  test('from a file named by A2A_AGENT_CREDENTIALS_FILE', () => {
    const dir = scratchDir('a2a-creds');
    const file = join(dir, 'creds.json');
    writeFileSync(file, JSON.stringify({ deployer: { bearer: 'from-file', origins: ['http://127.0.0.1:41243'] } }));
    expect(credentialsFor('deployer', { A2A_AGENT_CREDENTIALS_FILE: file })).toEqual({ type: 'bearer', token: 'from-file', origins: ['http://127.0.0.1:41243'] });
    const e = (() => {
      try {
        credentialsFor('deployer', { A2A_AGENT_CREDENTIALS_FILE: join(dir, 'missing.json') });
      } catch (err) {
        return err as Error;
      }
      throw new Error('expected an error');
    })();
    expect(e.name).toBe('CredentialsConfigError');
    expect(e.message).toContain('ENOENT');
  });

  test.each([
    ['{"deployer": {"bearer": "super-secret-1"', 'A2A_AGENT_CREDENTIALS: not valid JSON'],
    [{ deployer: { bearer: '', origins: [O] } }, 'A2A_AGENT_CREDENTIALS: agent "deployer", field bearer: must not be empty'],
    [{ deployer: { token: 'super-secret-1', origins: [O] } }, 'A2A_AGENT_CREDENTIALS: agent "deployer": expected exactly one of "bearer" or "apiKey"'],
    [{ deployer: { bearer: 'super-secret-1', apiKey: { header: 'X-K', value: 'super-secret-1' }, origins: [O] } }, 'agent "deployer": expected exactly one of'],
    [{ x: { apiKey: { header: 'Bad Header', value: 'super-secret-1' }, origins: [O] } }, 'agent "x", field apiKey.header: must be a valid HTTP header name'],
    [{ x: { apiKey: { header: 'X-K', value: 'super-secret-1\r\nX-Evil: 1' }, origins: [O] } }, 'agent "x", field apiKey.value: must not contain line breaks or NUL'],
    // A credential is never sent by name alone: without origins the configuration is refused, naming the agent.
    [{ deployer: { bearer: 'super-secret-1' } }, 'A2A_AGENT_CREDENTIALS: agent "deployer", field origins: required: the origins this credential may be sent to'],
    [{ deployer: { bearer: 'super-secret-1', origins: [] } }, 'agent "deployer", field origins: at least one origin'],
    [{ deployer: { bearer: 'super-secret-1', origins: ['http://127.0.0.1:41243/jsonrpc'] } }, 'agent "deployer", field origins[0]: "http://127.0.0.1:41243/jsonrpc" is not an origin'],
    [{ deployer: { bearer: 'super-secret-1', origins: ['127.0.0.1:41243'] } }, 'agent "deployer", field origins[0]: "127.0.0.1:41243" is not an origin'],
    [{ x: 'super-secret-1' }, 'agent "x": expected object, got string'],
    [['super-secret-1'], 'A2A_AGENT_CREDENTIALS: top level: expected an object keyed by agent name'],
  ])('bad configuration %j -> clear error without the secret', (config, message) => {
    const e = (() => {
      try {
        credentialsFor('deployer', env(config));
      } catch (err) {
        return err as Error;
      }
      throw new Error('expected an error');
    })();
    expect(e.name).toBe('CredentialsConfigError');
    expect(e.message).toContain(message);
    expect(e.message).not.toContain('super-secret-1');
  });
});

test('the client sends the credential configured for its agent name only to its origins, judged per request', async () => {
  const hostile = await startHostileAgent();
  const elsewhere = await startHostileAgent();
  const saved = process.env.A2A_AGENT_CREDENTIALS;
  process.env.A2A_AGENT_CREDENTIALS = JSON.stringify({
    search: { apiKey: { header: 'X-Api-Key', value: 'key-from-env' }, origins: [new URL(hostile.baseUrl).origin] },
    // The same name at another origin: never sent to the hostile agent.
    other: { bearer: 'bearer-for-elsewhere', origins: ['http://127.0.0.1:9'] },
  });
  try {
    const card = await resolveAgentCard(hostile.baseUrl, { agentName: 'search' });
    expect(hostile.requests[0]?.headers['x-api-key']).toBe('key-from-env');
    // The card calls itself "hostile": a card cannot claim another agent's credentials.
    for (const [agentName, expected] of [['search', 'key-from-env'], [undefined, undefined]] as const) {
      const c = createA2AClient(card, agentName ? { agentName } : {});
      await c.sendMessage({ message: userMessage('hi') });
      expect(hostile.requests[hostile.requests.length - 1]?.headers['x-api-key']).toBe(expected);
      await c.close();
    }
    // A name whose credential is bound to another origin sends nothing here; `null` sends nothing at all.
    for (const opts of [{ agentName: 'other' }, { agentName: 'search', credentials: null }]) {
      const c = createA2AClient(card, opts);
      await c.sendMessage({ message: userMessage('hi') });
      const last = hostile.requests[hostile.requests.length - 1]!;
      expect(last.headers.authorization).toBeUndefined();
      expect(last.headers['x-api-key']).toBeUndefined();
      await c.close();
    }
    // A card served at the credential's origin that points its interfaces elsewhere: the card
    // request carries the credential, the calls to the other origin do not.
    const jsonrpc = `${elsewhere.baseUrl}/jsonrpc`;
    hostile.setCard({ ...hostile.card, supportedInterfaces: [{ url: jsonrpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
    const moved = await resolveAgentCard(hostile.baseUrl, { agentName: 'search' });
    expect(hostile.requests[hostile.requests.length - 1]?.headers['x-api-key']).toBe('key-from-env');
    const c = createA2AClient(moved, { agentName: 'search' });
    await c.sendMessage({ message: userMessage('hi') });
    await c.close();
    expect(elsewhere.requests.length).toBeGreaterThan(0);
    for (const r of elsewhere.requests) {
      expect(r.headers['x-api-key']).toBeUndefined();
      expect(r.headers.authorization).toBeUndefined();
    }
    hostile.setCard(hostile.card);
    hostile.setMode('echo-auth');
    const echoing = createA2AClient(card, { agentName: 'search', preferredBindings: ['HTTP+JSON'] });
    const e = await thrown(() => echoing.getTask({ id: 't' }));
    expect(e.message).not.toContain('key-from-env');
    await echoing.close();
  } finally {
    if (saved === undefined) delete process.env.A2A_AGENT_CREDENTIALS;
    else process.env.A2A_AGENT_CREDENTIALS = saved;
    await hostile.close();
    await elsewhere.close();
  }
});

test('redactPaths keep secrets out of pino logs', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const log = pino({ redact: { paths: [...redactPaths, ...redactPathsForHeaders(['x-custom-key'])], censor: '[REDACTED]' } }, sink);
  log.info({ headers: { authorization: 'Bearer s1', 'x-api-key': 's2', 'x-custom-key': 's3', accept: 'text/event-stream' } }, 'request');
  log.info({ req: { headers: { authorization: 'Bearer s4' } } }, 'incoming');
  log.info({ credentials: { type: 'bearer', token: 's5' }, agent: 'deployer' }, 'creds');
  log.info({ params: { configuration: { taskPushNotificationConfig: { url: 'http://hook', token: 's6', authentication: { scheme: 'Bearer', credentials: 's7' } } } } }, 'send');
  log.info({ config: { url: 'http://hook', token: 's8' } }, 'push config');
  const out = lines.join('');
  for (const s of ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8']) expect(out).not.toMatch(new RegExp(`"[^"]*\\b${s}"`));
  expect(out).toContain('text/event-stream');
  expect(out).toContain('http://hook');
  expect(out).toContain('deployer');
});
