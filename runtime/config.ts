// The planner's configuration, read once from the environment and parsed with zod so that a bad
// value stops start-up with a message naming the variable.
import { z } from 'zod';
import { OutboundPolicy, OutboundPolicyConfigError } from '../a2a/outbound-policy';
import { describeIssues } from '../a2a/validate';

const csv = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .string()
    .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(z.enum(values)).min(1));

/** A duration as the SDK takes it: 500ms, 30s, 2m. */
const duration = z.string().regex(/^\d+(ms|s|m)$/, 'a duration such as 500ms, 30s or 2m');

const port = z
  .string()
  .regex(/^\d{1,5}$/, 'a port number from 0 (any free port) to 65535')
  .transform(Number)
  .refine((n) => n <= 65535, 'a port number from 0 (any free port) to 65535');

/** PLANNER_AGENTS: JSON, agent name → base URL (http or https, no user:password@). */
const registeredAgents = z
  .string()
  .transform((s, ctx) => {
    const shape = 'an object of agent name → base URL, e.g. {"deployer": "https://deploy.example.com"}';
    let v: unknown;
    try {
      v = JSON.parse(s);
    } catch {
      ctx.addIssue({ code: 'custom', message: `not valid JSON: expected ${shape}` });
      return z.NEVER;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      ctx.addIssue({ code: 'custom', message: `expected ${shape}` });
      return z.NEVER;
    }
    return v;
  })
  .pipe(
    z.record(
      z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'an agent name: letters, digits, ".", "_" or "-"'),
      z
        .url({ protocol: /^https?$/, error: 'an http(s) base URL' })
        .refine((u) => !/^[a-z]+:\/\/[^/?#]*@/i.test(u), 'no user:password@ in the URL; credentials go in A2A_AGENT_CREDENTIALS, bound to origins'),
      { error: 'expected an object of agent name → base URL' },
    ),
  );

export const CALLER_AGENTS = ['registered', 'any'] as const;
export type CallerAgentsSetting = (typeof CALLER_AGENTS)[number];
/** A comma-separated list of bearer tokens (several during a rotation), each at least 16 characters. */
const tokenList = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
  .refine((tokens) => tokens.length > 0, 'no token in the list')
  .refine((tokens) => tokens.every((t) => t.length >= 16), 'each token needs at least 16 characters');

/** Milliseconds between 100 and an hour, named with the value when it is not. */
const keepAliveMs = z.string().transform((s, ctx) => {
  const n = /^\d+$/.test(s) ? Number(s) : NaN;
  if (n >= 100 && n <= 3_600_000) return n;
  ctx.addIssue({ code: 'custom', message: `${JSON.stringify(s)} is not a whole number of milliseconds from 100 to 3600000` });
  return z.NEVER;
});

const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const ConfigSchema = z.object({
  TEMPORAL_ADDRESS: z.string().regex(/^[^:\s]+:\d+$/, 'host:port').default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  PLANNER_TASK_QUEUE: z.string().min(1).default('planner'),
  /** Slots on the watch queue: each AUTH_REQUIRED wait holds one (a cheap, mostly idle socket). */
  PLANNER_WATCH_SLOTS: z.coerce.number().int().min(1).default(20_000),
  /**
   * The shared watch (activities/shared-watch.ts): approval rounds of agents that stream but do not
   * push park on streams the worker holds under one heartbeat. 'off': each keeps a heartbeating lease.
   */
  PLANNER_SHARED_WATCH: z.enum(['on', 'off']).default('on'),
  /**
   * How long the shared watch may go without a heartbeat before its waits are handed to another
   * worker. 4 s (one heartbeat per 3.2 s, ~189,000 a worker-week, whatever the number of waits):
   * with the hubs' 0.5 s sticky timeout, a SIGKILL hands 5,000 waits over in 8–10 s, most of it
   * opening their streams again (docs/benchmarks.md).
   */
  PLANNER_SHARED_WATCH_HEARTBEAT: duration.default('4s'),
  /**
   * How long a cached workflow's next task waits for this worker before any worker takes it (the
   * SDK's stickyQueueScheduleToStartTimeout): after a SIGKILL, every workflow the dead worker had
   * cached waits this long first (the watch hubs wait 0.5 s: worker/workers.ts). Half the SDK's 10 s:
   * a task that misses it is replayed elsewhere, and these histories are short.
   */
  PLANNER_STICKY_TIMEOUT: duration.default('5s'),
  PLANNER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(500),
  /** Pollers on the watch queue: few, since a watch holds its slot for as long as the wait lasts. */
  PLANNER_WATCH_POLLERS: z.coerce.number().int().min(1).default(4),
  /** Workflow tasks one worker runs at once (the SDK's default). */
  PLANNER_WORKFLOW_SLOTS: z.coerce.number().int().min(1).default(40),
  /** Activities (sends, cancels, alerts) one worker runs at once on the main queue (the SDK's default). */
  PLANNER_ACTIVITY_SLOTS: z.coerce.number().int().min(1).default(100),
  /** Pollers for workflow tasks and for activities on the main queue (each at most its slots). */
  PLANNER_WORKFLOW_POLLERS: z.coerce.number().int().min(1).default(10),
  PLANNER_ACTIVITY_POLLERS: z.coerce.number().int().min(1).default(10),
  /** On SIGTERM, how long running activities on the main queue may take to finish before they are cancelled. */
  PLANNER_SHUTDOWN_GRACE: duration.default('30s'),
  /** Where the worker serves Prometheus metrics (host:port, path /metrics); unset: no metrics endpoint. */
  PLANNER_METRICS_ADDRESS: z.string().regex(/^[^:\s]+:\d+$/, 'host:port').optional(),
  /** How often the worker samples the waits for its gauges (planner_waits, planner_oldest_wait_seconds), from visibility. */
  PLANNER_METRICS_SAMPLE_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /**
   * Where the planner may connect (agents, their cards' interfaces, the alert webhook): host names,
   * *.suffixes, IPs and CIDRs, comma-separated; unset: anywhere but link-local and metadata addresses
   * (a2a/outbound-policy.ts, docs/security.md).
   */
  PLANNER_AGENT_ALLOW: z
    .string()
    .superRefine((raw, c) => {
      try {
        OutboundPolicy.fromEnv({ PLANNER_AGENT_ALLOW: raw });
      } catch (e) {
        if (!(e instanceof OutboundPolicyConfigError)) throw e;
        c.addIssue({ code: 'custom', message: e.message.replace(/^PLANNER_AGENT_ALLOW: /, '') });
      }
    })
    .optional(),
  PLANNER_ALERT_SINKS: csv(['log', 'webhook'] as const).default(['log']),
  PLANNER_ALERT_WEBHOOK_URL: z.url().optional(),
  PLANNER_UI_URL: z.url().default('http://127.0.0.1:8233'),
  /** Public base URL of the push receiver; enables push notifications for agents that support them. */
  PLANNER_WEBHOOK_BASE_URL: z.url().optional(),
  /**
   * Key for the per-task webhook tokens (HMAC); required with PLANNER_WEBHOOK_BASE_URL. Also seals the
   * credentials of upstream callers' push configs (the A2A face offers push only when it is set).
   */
  PLANNER_WEBHOOK_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /** Where the push receiver listens (host:port). */
  PLANNER_WEBHOOK_LISTEN: z.string().regex(/^[^:\s]+:\d+$/, 'host:port').default('127.0.0.1:8787'),
  PLANNER_LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /** pretty (human-readable) or json (one object per line); unset: pretty on a terminal, else json. */
  PLANNER_LOG_FORMAT: z
    .custom<LogFormat>((v) => LOG_FORMATS.includes(v as LogFormat), { error: (issue) => `${JSON.stringify(issue.input)} is not a log format: use pretty or json` })
    .optional(),
  /** Where the workflow bundle is prebuilt (skips bundling at start). */
  PLANNER_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  /** The claim-check blob store (payloads/): a folder, relative to the working directory. */
  PLANNER_BLOB_DIR: z.string().min(1).default('.planner/blobs'),
  /** Payloads larger than this go to the blob store; Temporal refuses 2 MB and warns from 512 KiB. */
  PLANNER_PAYLOAD_OFFLOAD_BYTES: z.coerce.number().int().min(1024).max(512 * 1024, 'at most 524288 (Temporal warns above 512 KiB)').default(128 * 1024),
  /** The hard cap on one payload, and on one A2A frame or response from an agent. */
  PLANNER_PAYLOAD_MAX_BYTES: z.coerce.number().int().min(1024 * 1024, 'at least 1048576').default(64 * 1024 * 1024),
  /** Where `planner dev` serves the demo agents (demo/agents/); 0 picks a free port. */
  PLANNER_DEMO_REVIEWER_PORT: port.default(41241),
  PLANNER_DEMO_DEPLOYER_PORT: port.default(41243),
  /** `planner serve` (server/): where the HTTP API listens. */
  PLANNER_HOST: z.string().min(1).default('127.0.0.1'),
  PLANNER_PORT: port.default(8080),
  /** Callers' bearer tokens, comma-separated (two during a rotation); each sees only what it started. Never logged. */
  PLANNER_API_TOKEN: tokenList.optional(),
  /** Operators' bearer tokens, comma-separated: each sees, answers and cancels everything. Never logged. */
  PLANNER_API_OPERATOR_TOKEN: tokenList.optional(),
  /** `1` lets the API run without a token (local development only). */
  PLANNER_API_INSECURE: z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true').default(false),
  /** The largest request body the API reads, in bytes. */
  PLANNER_API_BODY_LIMIT: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  /**
   * The public base URL callers reach `planner serve` at (e.g. https://planner.example.com): the A2A
   * face's card names its interfaces under it. Unset, the card takes them from the request's Host
   * header and says `Vary: Host`.
   */
  PLANNER_PUBLIC_URL: z
    .url()
    .refine((u) => /^https?:$/.test(new URL(u).protocol), 'an http or https URL')
    .refine((u) => { const x = new URL(u); return x.username === '' && x.password === '' && x.search === '' && x.hash === ''; }, 'a base URL without credentials, query or fragment')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** The folder whose plan files `POST /v1/plans {planFile}` may name (relative to the working directory). */
  PLANNER_PLAN_DIR: z.string().min(1).default('demo/plans'),
  /** The operator's agents, by name, that plans callers send may use (JSON: name → base URL). */
  PLANNER_AGENTS: registeredAgents.default({}),
  /**
   * Whether a caller's plan may also name an agent of its own (by url, inline card or agentUrls):
   * `registered` (no: only the agents of PLANNER_AGENTS) or `any` (yes; such an agent never gets a
   * configured credential).
   */
  PLANNER_CALLER_AGENTS: z.enum(CALLER_AGENTS).default('registered'),
  // Bounds per caller on `planner serve` (docs/security.md, "Bounds"): over one, a 4xx naming it.
  /** Event streams and A2A subscriptions one caller may hold open at once, on one server process. */
  PLANNER_STREAMS_PER_CALLER: z.coerce.number().int().min(1).default(20),
  /** Push-notification configs one A2A task may have (checked by the face and by the plan). */
  PLANNER_PUSH_CONFIGS_PER_TASK: z.coerce.number().int().min(1).max(1000).default(10),
  /** Schedules one caller may have. */
  PLANNER_SCHEDULES_PER_CALLER: z.coerce.number().int().min(1).default(20),
  /** The shortest interval a schedule may have (`every`). */
  PLANNER_SCHEDULE_MIN_INTERVAL: duration.default('1m'),
  /** How deep a request body's JSON may nest (objects and arrays), on the API and the A2A face. */
  PLANNER_JSON_MAX_DEPTH: z.coerce.number().int().min(2).max(10_000).default(64),
  /** The largest answer: its text in UTF-8 bytes, or its data as JSON (API answers, A2A face messages). */
  PLANNER_ANSWER_MAX_BYTES: z.coerce.number().int().min(1).default(64 * 1024),
  /** How long an answer request waits for the agent's reply before it returns 202 (accepted, pending). */
  PLANNER_ANSWER_WAIT: duration.default('30s'),
  /**
   * The Temporal UI's codec endpoint (`/codec/decode`, `/codec/encode`, server/codec/): the browser
   * origins allowed to call it, comma-separated (default: the origin of PLANNER_UI_URL).
   */
  PLANNER_CODEC_ORIGINS: z
    .string()
    .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(z.url({ protocol: /^https?$/, error: 'an http(s) origin such as http://127.0.0.1:8233' }).refine((u) => new URL(u).origin === u.replace(/\/$/, ''), 'an origin only: scheme, host and port, no path').transform((u) => new URL(u).origin)).min(1))
    .optional(),
  /**
   * Who may call the codec endpoint: `operator` (default: a bearer token of PLANNER_API_OPERATOR_TOKEN,
   * which the UI sends with TEMPORAL_CODEC_PASS_ACCESS_TOKEN) or `none` (no token: a UI without login,
   * on a host only trusted people reach; `planner dev` uses it on loopback for the UI it starts).
   */
  PLANNER_CODEC_AUTH: z.enum(['operator', 'none']).default('operator'),
  /** The largest codec request body, in bytes (a UI page's payloads, base64 in JSON). */
  PLANNER_CODEC_BODY_LIMIT: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(4 * 1024 * 1024),
  /** How long an A2A stream may stay silent before it carries an SSE comment frame (`: keep-alive`), so clients and proxies do not cut it. */
  PLANNER_SSE_KEEPALIVE_MS: keepAliveMs.default(15_000),
});

export type PlannerConfig = z.output<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): PlannerConfig {
  const known = Object.fromEntries(Object.keys(ConfigSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = ConfigSchema.safeParse(known);
  if (!parsed.success) {
    throw new Error(`invalid planner configuration: ${describeIssues(parsed.error, known)}`);
  }
  if (parsed.data.PLANNER_ALERT_SINKS.includes('webhook') && !parsed.data.PLANNER_ALERT_WEBHOOK_URL) {
    throw new Error('invalid planner configuration: PLANNER_ALERT_SINKS includes webhook but PLANNER_ALERT_WEBHOOK_URL is not set');
  }
  const webhook = parsed.data.PLANNER_ALERT_WEBHOOK_URL;
  const refused = webhook ? OutboundPolicy.fromEnv({ PLANNER_AGENT_ALLOW: parsed.data.PLANNER_AGENT_ALLOW }).checkUrl(webhook) : undefined;
  if (refused !== undefined) {
    // The host only: chat webhooks carry their secret in the path.
    throw new Error(`invalid planner configuration: PLANNER_ALERT_WEBHOOK_URL (host ${new URL(webhook!).host}) is refused: ${refused}`);
  }
  if (parsed.data.PLANNER_WEBHOOK_BASE_URL && !parsed.data.PLANNER_WEBHOOK_SECRET) {
    throw new Error('invalid planner configuration: PLANNER_WEBHOOK_BASE_URL is set but PLANNER_WEBHOOK_SECRET is not');
  }
  return parsed.data;
}

/** Push settings for the activities, when configured. */
export function pushSettings(config: PlannerConfig): { baseUrl: string; secret: string } | undefined {
  return config.PLANNER_WEBHOOK_BASE_URL && config.PLANNER_WEBHOOK_SECRET
    ? { baseUrl: config.PLANNER_WEBHOOK_BASE_URL, secret: config.PLANNER_WEBHOOK_SECRET }
    : undefined;
}
