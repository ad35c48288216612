/**
 * Per-agent credentials, each bound to the origins the operator configured it for.
 *
 * Configuration (JSON, keyed by the agent's name in the operator's plans):
 *   A2A_AGENT_CREDENTIALS='{"deployer":{"bearer":"s3cr3t","origins":["https://deploy.example.com"]},
 *                          "search":{"apiKey":{"header":"X-Api-Key","value":"k"},"origins":["http://127.0.0.1:41241"]}}'
 * or the same JSON in a file named by A2A_AGENT_CREDENTIALS_FILE (for mounted secrets).
 *
 * A name alone never selects a credential: it is sent only on a request whose URL's origin
 * (scheme, host, port) is one of its `origins`, judged per request, so a plan that gives the name
 * to another URL, or a card that points its interfaces elsewhere, never receives it. A credential
 * without origins is a configuration error naming the agent.
 *
 * Secrets live only here and in outgoing request headers: errors name the agent and field,
 * never a value, and `redactPaths` lets pino loggers blank them wherever they might be logged.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CredentialsConfigError } from './errors';
import { explainIssues, formatPath } from './validate';

/** A secret and the origins (`scheme://host[:port]`, normalised as URL.origin) it may be sent to. */
export type AgentCredentials = ({ type: 'bearer'; token: string } | { type: 'apiKey'; header: string; value: string }) & {
  origins: readonly string[];
};

export const CREDENTIALS_ENV = 'A2A_AGENT_CREDENTIALS';
export const CREDENTIALS_FILE_ENV = 'A2A_AGENT_CREDENTIALS_FILE';
/** The only worker variables a plan's `credentialEnv` may name. */
export const CREDENTIAL_ENV_PREFIX = 'PLANNER_AGENT_TOKEN_';

// Header values may not contain CR, LF or NUL (header injection); checking here keeps undici
// from rejecting the request later with a less helpful error.
const Secret = z
  .string()
  .min(1, 'must not be empty')
  .regex(/^[^\r\n\0]*$/, 'must not contain line breaks or NUL');
const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a valid HTTP header name');

/** `https://host[:port]` only: a path, query, fragment or user:password@ would suggest a finer binding than an origin gives. */
export function originOf(text: string): string | undefined {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (u.username || u.password || u.search || u.hash || u.pathname !== '/' || text.includes('?') || text.includes('#')) return undefined;
  return u.origin;
}

// Checked by hand rather than with z.array(...).min(1) so that each refusal says why an origin is required.
const Origins = z.unknown().transform((v, ctx): string[] => {
  const example = 'e.g. ["https://agents.example.com"]; a credential is never sent by agent name alone';
  if (v === undefined) ctx.addIssue({ code: 'custom', message: `required: the origins this credential may be sent to, ${example}` });
  else if (!Array.isArray(v)) ctx.addIssue({ code: 'custom', message: `expected an array of origins, ${example}` });
  else if (v.length === 0) ctx.addIssue({ code: 'custom', message: `at least one origin, ${example}` });
  else {
    const origins = v.map((o: unknown, i) => {
      const origin = typeof o === 'string' ? originOf(o) : undefined;
      if (origin === undefined) {
        ctx.addIssue({ code: 'custom', path: [i], message: `${JSON.stringify(o)} is not an origin such as https://agents.example.com or http://127.0.0.1:41243 (scheme, host and port only)` });
      }
      return origin ?? '';
    });
    return origins;
  }
  return z.NEVER;
});

const EntrySchema = z.intersection(
  z.object({ origins: Origins }),
  z.xor([z.object({ bearer: Secret }), z.object({ apiKey: z.object({ header: HeaderName, value: Secret }) })], {
    error: 'expected exactly one of "bearer" or "apiKey"',
  }),
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
 * The credential configured for `agentName`, with its origins, or undefined when none is. Throws
 * CredentialsConfigError when the configuration itself is malformed. The caller sends it only to
 * its origins (credentialHeaders).
 */
export function credentialsFor(agentName: string, env: NodeJS.ProcessEnv = process.env): AgentCredentials | undefined {
  const loaded = loadRaw(env);
  if (!loaded) return undefined;
  const config = parseConfig(loaded.raw, loaded.source);
  if (!Object.hasOwn(config, agentName)) return undefined;
  const entry = config[agentName]!;
  if ('bearer' in entry) return { type: 'bearer', token: entry.bearer, origins: entry.origins };
  return { type: 'apiKey', header: entry.apiKey.header, value: entry.apiKey.value, origins: entry.origins };
}

/** Whether `c` may be sent on a request to `url`: its origin is one of the credential's. */
export function credentialAllowedFor(c: AgentCredentials, url: string): boolean {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return false;
  }
  return c.origins.includes(origin);
}

/** Request headers carrying the credential, for a request to `url`: none unless its origin is one of the credential's. */
export function credentialHeaders(c: AgentCredentials | undefined, url: string): Record<string, string> {
  if (!c || !credentialAllowedFor(c, url)) return {};
  if (c.type === 'bearer') return { authorization: `Bearer ${c.token}` };
  return { [c.header.toLowerCase()]: c.value };
}

/** Why `variable` may not be a plan's credentialEnv, or undefined when it may. */
export function credentialEnvProblem(variable: string): string | undefined {
  if (variable.startsWith(CREDENTIAL_ENV_PREFIX) && /^[A-Z0-9_]+$/.test(variable) && variable.length > CREDENTIAL_ENV_PREFIX.length) return undefined;
  return `${variable} is not a credential variable: a plan may name only worker variables under ${CREDENTIAL_ENV_PREFIX}* (e.g. ${CREDENTIAL_ENV_PREFIX}DEPLOYER)`;
}

/**
 * The bearer token in the worker variable a plan's `credentialEnv` names, bound to `origins`.
 * Only variables under PLANNER_AGENT_TOKEN_ may be read: any other name (the webhook secret, the
 * credentials JSON) is refused naming the variable.
 */
export function credentialFromVariable(agentName: string, variable: string, origins: readonly string[], env: NodeJS.ProcessEnv = process.env): AgentCredentials {
  const problem = credentialEnvProblem(variable);
  if (problem) throw new CredentialsConfigError(`agent ${agentName}: credentialEnv: ${problem}`);
  const token = env[variable];
  if (token === undefined || token.trim() === '') {
    throw new CredentialsConfigError(`agent ${agentName}: its credential variable ${variable} is not set on this worker`);
  }
  if (/[\r\n\0]/.test(token)) throw new CredentialsConfigError(`agent ${agentName}: ${variable} contains a line break or NUL`);
  return { type: 'bearer', token, origins };
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
