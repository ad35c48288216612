/** Per-agent credentials: configuration parsing, use on the wire, and keeping them out of logs. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../support/scratch';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createA2AClient, credentialsFor, redactPaths, redactPathsForHeaders, resolveAgentCard } from '../../a2a';
import { startHostileAgent } from './hostile-agent';
import { thrown, userMessage } from './helpers';

const env = (json: unknown): NodeJS.ProcessEnv => ({ A2A_AGENT_CREDENTIALS: typeof json === 'string' ? json : JSON.stringify(json) });

describe('credentialsFor', () => {
  test('bearer and API key by agent name; nothing for others', () => {
    const e = env({ deployer: { bearer: 'tok-1' }, search: { apiKey: { header: 'X-Api-Key', value: 'key-2' } } });
    expect(credentialsFor('deployer', e)).toEqual({ type: 'bearer', token: 'tok-1' });
    expect(credentialsFor('search', e)).toEqual({ type: 'apiKey', header: 'X-Api-Key', value: 'key-2' });
    expect(credentialsFor('other', e)).toBeUndefined();
    expect(credentialsFor('deployer', {})).toBeUndefined();
  });

  test('from a file named by A2A_AGENT_CREDENTIALS_FILE', () => {
    const dir = scratchDir('a2a-creds');
    const file = join(dir, 'creds.json');
    writeFileSync(file, JSON.stringify({ deployer: { bearer: 'from-file' } }));
    expect(credentialsFor('deployer', { A2A_AGENT_CREDENTIALS_FILE: file })).toEqual({ type: 'bearer', token: 'from-file' });
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
    [{ deployer: { bearer: '' } }, 'A2A_AGENT_CREDENTIALS: agent "deployer", field bearer: must not be empty'],
    [{ deployer: { token: 'super-secret-1' } }, 'A2A_AGENT_CREDENTIALS: agent "deployer": expected exactly one of "bearer" or "apiKey"'],
    [{ deployer: { bearer: 'super-secret-1', apiKey: { header: 'X-K', value: 'super-secret-1' } } }, 'agent "deployer": expected exactly one of'],
    [{ x: { apiKey: { header: 'Bad Header', value: 'super-secret-1' } } }, 'agent "x", field apiKey.header: must be a valid HTTP header name'],
    [{ x: { apiKey: { header: 'X-K', value: 'super-secret-1\r\nX-Evil: 1' } } }, 'agent "x", field apiKey.value: must not contain line breaks or NUL'],
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

test('the client sends the credential configured for its agent name, and only for that name', async () => {
  const hostile = await startHostileAgent();
  const saved = process.env.A2A_AGENT_CREDENTIALS;
  process.env.A2A_AGENT_CREDENTIALS = JSON.stringify({ search: { apiKey: { header: 'X-Api-Key', value: 'key-from-env' } } });
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
    hostile.setMode('echo-auth');
    const c = createA2AClient(card, { agentName: 'search', preferredBindings: ['HTTP+JSON'] });
    const e = await thrown(() => c.getTask({ id: 't' }));
    expect(e.message).not.toContain('key-from-env');
    await c.close();
  } finally {
    if (saved === undefined) delete process.env.A2A_AGENT_CREDENTIALS;
    else process.env.A2A_AGENT_CREDENTIALS = saved;
    await hostile.close();
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
