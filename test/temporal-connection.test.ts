// runtime/temporal-connection.ts: Temporal's standard client configuration (envconfig) under the
// planner's config: explicit variables win, then the active profile, then the planner's defaults.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from './support/scratch';
import { loadConfig } from '../runtime/config';
import { temporalTarget, temporalUnavailable } from '../runtime/temporal-connection';
import { testEnv } from './harness/planner';

const ROOT = join(__dirname, '..');

const dir = scratchDir('envconfig');
const configFile = join(dir, 'temporal.toml');
writeFileSync(
  configFile,
  ['[profile.default]', 'address = "profile-host:7233"', 'namespace = "from-profile"', '', '[profile.cloud]', 'address = "ns.acct.tmprl.cloud:7233"', 'namespace = "ns.acct"', 'api_key = "secret-key"', ''].join('\n'),
);
const target = (env: Record<string, string>) => temporalTarget(loadConfig(env), env);

describe('temporalTarget', () => {
  it('defaults to the local dev server without any configuration', () => {
    expect(target({ TEMPORAL_CONFIG_FILE: join(dir, 'missing.toml') })).toMatchObject({ connectionOptions: { address: '127.0.0.1:7233' }, namespace: 'default' });
  });

  it('takes the address and namespace of the config file profile when no variable names them', () => {
    expect(target({ TEMPORAL_CONFIG_FILE: configFile })).toMatchObject({ connectionOptions: { address: 'profile-host:7233' }, namespace: 'from-profile' });
  });

  it('lets TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE win over the profile', () => {
    expect(target({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_ADDRESS: '10.0.0.1:7233', TEMPORAL_NAMESPACE: 'ns1' })).toMatchObject({ connectionOptions: { address: '10.0.0.1:7233' }, namespace: 'ns1' });
  });

  it('uses a profile with an API key: TLS on, the key never in the description', () => {
    const t = target({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'cloud' });
    expect(t.connectionOptions).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', apiKey: 'secret-key', tls: true });
    expect(t.namespace).toBe('ns.acct');
    expect(t.describe).not.toContain('secret-key');
    expect(t.describe).toContain('API key');
  });

  it('reads TEMPORAL_API_KEY and TLS client certificates from the environment', () => {
    const cert = join(dir, 'client.pem');
    const key = join(dir, 'client.key');
    writeFileSync(cert, 'CERT');
    writeFileSync(key, 'KEY');
    const withKey = target({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_API_KEY: 'k' });
    expect(withKey.connectionOptions).toMatchObject({ apiKey: 'k', tls: true });
    const mtls = target({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS_CLIENT_CERT_PATH: cert, TEMPORAL_TLS_CLIENT_KEY_PATH: key });
    const tls = mtls.connectionOptions.tls as { clientCertPair?: { crt: Uint8Array; key: Uint8Array } };
    expect(Buffer.from(tls.clientCertPair!.crt).toString()).toBe('CERT');
    expect(Buffer.from(tls.clientCertPair!.key).toString()).toBe('KEY');
  });
});

describe('temporalUnavailable', () => {
  it('names UNAVAILABLE and deadline errors, and a namespace the server cannot read', () => {
    expect(temporalUnavailable(Object.assign(new Error('14 UNAVAILABLE: connection refused'), { code: 14 }), 'h:1')).toMatch(/^Temporal at h:1 is unavailable right now/);
    expect(temporalUnavailable(new Error('outer', { cause: Object.assign(new Error('4 DEADLINE_EXCEEDED'), { code: 4 }) }), 'h:1')).toMatch(/unavailable/);
    expect(temporalUnavailable(Object.assign(new Error("Namespace not found: 'default'"), { name: 'NamespaceNotFoundError' }), 'h:1')).toMatch(/cannot serve the namespace right now/);
    expect(temporalUnavailable(new Error('some other failure'), 'h:1')).toBeUndefined();
  });
});

describe('closing a connection while a call waits on its retry', () => {
  it('lives through it: the retry ends with the connection instead of throwing in its timer', () => {
    // A child process, since the failure is an uncaught exception that would take the test worker down.
    const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'test', 'support', 'close-during-retry.ts'), testEnv().address], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).not.toContain('Channel has been shut down');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^call (failed|answered)/m);
  });
});
