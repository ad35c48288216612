/**
 * Per-agent credentials, read from configuration by agent name.
 *
 * Configuration (JSON, keyed by agent name):
 *   A2A_AGENT_CREDENTIALS='{"deployer":{"bearer":"s3cr3t"},"search":{"apiKey":{"header":"X-Api-Key","value":"k"}}}'
 * or the same JSON in a file named by A2A_AGENT_CREDENTIALS_FILE (for mounted secrets).
 *
 * Secrets live only here and in outgoing request headers: errors name the agent and field,
 * never a value, and `redactPaths` lets pino loggers blank them wherever they might be logged.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CredentialsConfigError } from './errors';
import { explainIssues, formatPath } from './validate';

export type AgentCredentials = { type: 'bearer'; token: string } | { type: 'apiKey'; header: string; value: string };

export const CREDENTIALS_ENV = 'A2A_AGENT_CREDENTIALS';
export const CREDENTIALS_FILE_ENV = 'A2A_AGENT_CREDENTIALS_FILE';

// Header values may not contain CR, LF or NUL (header injection); checking here keeps undici
// from rejecting the request later with a less helpful error.
const Secret = z
  .string()
  .min(1, 'must not be empty')
  .regex(/^[^\r\n\0]*$/, 'must not contain line breaks or NUL');
const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a valid HTTP header name');

const EntrySchema = z.xor(
  [z.object({ bearer: Secret }), z.object({ apiKey: z.object({ header: HeaderName, value: Secret }) })],
  { error: 'expected exactly one of "bearer" or "apiKey"' },
);
const ConfigSchema = z.record(z.string(), EntrySchema);
type Config = z.infer<typeof ConfigSchema>;

let cache: { raw: string; config: Config } | undefined;

function loadRaw(env: NodeJS.ProcessEnv): { raw: string; source: string } | undefined {
  const inline = env[CREDENTIALS_ENV];
  if (inline !== undefined && inline.trim() !== '') return { raw: inline, source: CREDENTIALS_ENV };
  const file = env[CREDENTIALS_FILE_ENV];
  if (file === undefined || file.trim() === '') return undefined;
  try {
    return { raw: readFileSync(file, 'utf8'), source: `${CREDENTIALS_FILE_ENV} (${file})` };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    throw new CredentialsConfigError(`${CREDENTIALS_FILE_ENV}: cannot read ${file} (${typeof code === 'string' ? code : 'error'})`);
  }
}

function parseConfig(raw: string, source: string): Config {
  if (cache?.raw === raw) return cache.config;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // JSON.parse's own message quotes the input, which would leak a secret.
    throw new CredentialsConfigError(`${source}: not valid JSON`);
  }
  const r = ConfigSchema.safeParse(json);
  if (!r.success) {
    const p = explainIssues(r.error.issues, json);
    const agent = p.keys[0];
    const field = formatPath(p.keys.slice(1));
    const where = agent === undefined ? 'top level' : `agent "${String(agent)}"${field ? `, field ${field}` : ''}`;
    throw new CredentialsConfigError(`${source}: ${where}: ${agent === undefined ? 'expected an object keyed by agent name' : p.detail}`);
  }
  cache = { raw, config: r.data };
  return r.data;
}

/**
 * The credentials configured for `agentName`, or undefined when none are. Throws
 * CredentialsConfigError when the configuration itself is malformed.
 */
export function credentialsFor(agentName: string, env: NodeJS.ProcessEnv = process.env): AgentCredentials | undefined {
  const loaded = loadRaw(env);
  if (!loaded) return undefined;
  const entry = parseConfig(loaded.raw, loaded.source)[agentName];
  if (!entry) return undefined;
  if ('bearer' in entry) return { type: 'bearer', token: entry.bearer };
  return { type: 'apiKey', header: entry.apiKey.header, value: entry.apiKey.value };
}

/** Request headers carrying the credential. */
export function credentialHeaders(c: AgentCredentials | undefined): Record<string, string> {
  if (!c) return {};
  if (c.type === 'bearer') return { authorization: `Bearer ${c.token}` };
  return { [c.header.toLowerCase()]: c.value };
}

/** The secret strings, so error messages can be scrubbed of them. */
export function secretValues(c: AgentCredentials | undefined): string[] {
  if (!c) return [];
  return c.type === 'bearer' ? [c.token] : [c.value];
}

const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-a2a-notification-token'];

/** pino `redact` paths for a header map found at the given object paths. */
export function redactPathsForHeaders(headerNames: readonly string[], at: readonly string[] = HEADER_CONTAINERS): string[] {
  return at.flatMap((base) => headerNames.map((h) => `${base}["${h.toLowerCase()}"]`));
}

const HEADER_CONTAINERS = ['headers', '*.headers', 'req.headers', 'res.headers', 'request.headers', 'response.headers'];

/**
 * pino `redact` paths covering the places this project's secrets travel: auth headers (also for
 * API-key headers with the usual names; add custom names with redactPathsForHeaders), an
 * AgentCredentials object, and push-notification tokens and credentials.
 */
export const redactPaths: string[] = [
  ...redactPathsForHeaders(SECRET_HEADERS),
  'authorization',
  '*.authorization',
  'credentials',
  '*.credentials',
  '*.*.credentials',
  'token',
  '*.token',
  '*.*.token',
  'bearer',
  '*.bearer',
  'apiKey',
  '*.apiKey',
  'configuration.taskPushNotificationConfig.token',
  'configuration.taskPushNotificationConfig.authentication.credentials',
  '*.configuration.taskPushNotificationConfig.token',
  '*.configuration.taskPushNotificationConfig.authentication.credentials',
  'taskPushNotificationConfig.authentication.credentials',
  '*.taskPushNotificationConfig.authentication.credentials',
];
