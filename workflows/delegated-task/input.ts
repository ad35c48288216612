// The delegated task's input and output: zod is the single source of these types. Parsed at the edge
// (API, CLI); the workflow checks it again when it starts (delegated-task-check.ts: plain code for
// input parsed here already, this schema for anything else), so a bad start from the Temporal UI
// fails clearly. Workflow code must not import this module's values at the top (see schemas.ts).
import type { Duration as TemporalDuration } from '@temporalio/common';
import { z } from 'zod';
import { AnyVersionAgentCardSchema } from '../../a2a/compat/v0_3/card';
import type { Artifact, Message, TaskState } from '../../a2a/schema';
import { POLICY_DEFAULTS, WATCH_DEFAULTS } from './defaults';

const DURATION = /^\d+(\.\d+)?\s*(ms|s|m|h|d)$/;
export const DurationSchema = z
  .union([
    z.number().int().positive(),
    z
      .string()
      .regex(DURATION, 'a duration such as "30s", "15m", "72h" or a number of milliseconds')
      .refine((d) => Number.parseFloat(d) > 0, 'a duration longer than zero'),
  ])
  // The regex admits only what Temporal's duration parser reads.
  .transform((d) => d as TemporalDuration);
export type Duration = z.infer<typeof DurationSchema>;

export const AgentRefSchema = z
  .object({
    name: z.string().min(1).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" or "-"'),
    /** Base URL; the agent card is read from /.well-known/agent-card.json under it. */
    url: z
      .url({ protocol: /^https?$/ })
      // Credentials in a URL would land in history, logs and search attributes.
      .refine((u) => !/^[a-z]+:\/\/[^/?#]*@/i.test(u), 'no user:password@ in the URL; give the credential in A2A_AGENT_CREDENTIALS (by agent name, bound to origins) instead')
      .optional(),
    /** An agent card given inline instead of a URL, validated like one fetched (a v0.3 card is read as one; a2a/compat/v0_3/card.ts). */
    card: AnyVersionAgentCardSchema.optional(),
    /** The binding to prefer when the card offers several. */
    binding: z.enum(['jsonrpc', 'http+json']).optional(),
    /**
     * The A2A protocol version to speak: default 1.0 whenever the card offers it, else 0.3
     * (docs/a2a-client.md). '0.3' keeps talking v0.3 to an agent whose card offers both.
     */
    a2aVersion: z.enum(['1.0', '0.3']).optional(),
    /**
     * The environment variable, on the workers, that holds the agent's bearer token (a plan's
     * `credentialEnv`); only the name enters history. Without it, A2A_AGENT_CREDENTIALS applies.
     */
    credentialEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name such as PLANNER_AGENT_TOKEN_DEPLOYER').optional(),
    /** An agent a caller named (not one of the operator's): it is sent no configured credential. */
    callerNamed: z.literal(true).optional(),
    /** Longest wait for one short call to the agent (call-timeout.ts; default 2m, at most 10m). */
    callTimeout: DurationSchema.optional(),
  })
  .refine((a) => a.url !== undefined || a.card !== undefined, { message: 'give the agent a url or a card' });
export type AgentRef = z.infer<typeof AgentRefSchema>;

export const OutgoingMessageSchema = z
  .object({
    text: z.string().min(1).optional(),
    data: z.unknown().optional(),
    contextId: z.string().min(1).optional(),
    referenceTaskIds: z.array(z.string().min(1)).optional(),
  })
  .refine((m) => m.text !== undefined || m.data !== undefined, { message: 'a message needs text or data' });
export type OutgoingMessage = z.infer<typeof OutgoingMessageSchema>;

export const DeadlinePolicySchema = z.object({
  after: DurationSchema,
  /** remind: alert again every `remindEvery` (default: `after`); fail: fail the workflow; cancel: CancelTask, then fail. */
  onDeadline: z.enum(['remind', 'fail', 'cancel']),
  remindEvery: DurationSchema.optional(),
});
export type DeadlinePolicy = z.infer<typeof DeadlinePolicySchema>;

export const WatchPolicySchema = z.object({
  /** auto: stream when the card says it can, else poll. */
  mode: z.enum(['auto', 'stream', 'poll']).default(WATCH_DEFAULTS.mode),
  pollInitial: DurationSchema.default(WATCH_DEFAULTS.pollInitial),
  pollMax: DurationSchema.default(WATCH_DEFAULTS.pollMax),
  /** A silent stream is checked with GetTask after this long, then resubscribed. */
  idleTimeout: DurationSchema.default(WATCH_DEFAULTS.idleTimeout),
  /** How soon a crashed worker's watch is retried elsewhere; each watch heartbeats every third of it. */
  heartbeatTimeout: DurationSchema.default(WATCH_DEFAULTS.heartbeatTimeout),
  /**
   * The first lease of every wait heartbeats this often instead, so a worker that dies right after
   * the alert (when an approval is most likely) hands the watch over within seconds.
   */
  firstHeartbeatTimeout: DurationSchema.default(WATCH_DEFAULTS.firstHeartbeatTimeout),
  /**
   * How long that first, fast-heartbeat lease lasts (~15 heartbeats); then an approval round on an
   * agent that streams parks on the worker's shared watch.
   */
  firstLease: DurationSchema.default(WATCH_DEFAULTS.firstLease),
  /** A watch ends and is renewed after this long: new activity code and rebalancing take effect. */
  lease: DurationSchema.default(WATCH_DEFAULTS.lease),
  /** While a question waits (no activity held), GetTask this often to notice a task that ended at the agent. */
  inputPoll: DurationSchema.default(WATCH_DEFAULTS.inputPoll),
  /**
   * The poll's interval grows with the question's age (half of it) up to this: a question a person
   * leaves for a week costs ~20 polls, not 1,008 (deadlines.ts inputPollMs).
   */
  inputPollMax: DurationSchema.default(WATCH_DEFAULTS.inputPollMax),
  /** Watching that has failed this long (agent unreachable) alerts the operator (kind `unreachable`). */
  unreachableAfter: DurationSchema.default(WATCH_DEFAULTS.unreachableAfter),
  /** After that alert: keep trying with a slow backoff (`alert`), or fail the task (`fail`). */
  onUnreachable: z.enum(['alert', 'fail']).default(WATCH_DEFAULTS.onUnreachable),
  /** Streams that close this many times in a row bringing nothing new: poll instead, for the rest of the lease. */
  maxEmptyCloses: z.number().int().min(1).default(WATCH_DEFAULTS.maxEmptyCloses),
  /** A change that needs no action is signalled after this quiet time, so a burst costs one signal. */
  coalesce: DurationSchema.default(WATCH_DEFAULTS.coalesce),
  /**
   * With push notifications registered, a slow GetTask poll stays on as a backstop (an approval
   * round parked on push: this at first, growing with the round's age). Push is the watch; at 1 min
   * the backstop polls of 5,000 parked approvals kept two cores busy (docs/benchmarks.md).
   */
  pushBackstop: DurationSchema.default(WATCH_DEFAULTS.pushBackstop),
  /** Register push notifications when the agent supports them and the planner has a webhook URL. */
  push: z.boolean().default(WATCH_DEFAULTS.push),
});
export type WatchPolicy = z.infer<typeof WatchPolicySchema>;

export const PoliciesSchema = z.object({
  input: DeadlinePolicySchema.optional(),
  auth: DeadlinePolicySchema.optional(),
  /**
   * How long the remote task may stay SUBMITTED or WORKING (counted from when the planner began
   * watching it in that state): an agent stuck working is otherwise watched for as long as it says
   * it works. By default the operator is reminded after a day, and every day after.
   */
  working: DeadlinePolicySchema.default({ ...POLICY_DEFAULTS.working }),
  /** The whole task, from its start to its end, whatever it waits on (none by default). */
  total: DeadlinePolicySchema.optional(),
  maxAuthRounds: z.number().int().min(1).default(POLICY_DEFAULTS.maxAuthRounds),
  watch: WatchPolicySchema.default(WatchPolicySchema.parse({})),
  /** Upper bound for one blocking SendMessage call. */
  sendTimeout: DurationSchema.default(POLICY_DEFAULTS.sendTimeout),
  /** Continue as new once a run's history has this many events (or when Temporal suggests it). */
  historyBudget: z.number().int().min(100).max(40_000).default(POLICY_DEFAULTS.historyBudget),
  /**
   * The reply to the first message was lost and the agent cannot tell whether it got it: `ask` alerts
   * the operator and waits for a decision (`planner resolve`); `resend` sends again (may duplicate).
   */
  onAmbiguousSend: z.enum(['ask', 'resend']).default(POLICY_DEFAULTS.onAmbiguousSend),
});
export type Policies = z.infer<typeof PoliciesSchema>;

export const DelegatedTaskInputSchema = z.object({
  agent: AgentRefSchema,
  message: OutgoingMessageSchema,
  planId: z.string().min(1).optional(),
  /** The plan step this task runs (PlanWorkflow's children). */
  stepId: z.string().min(1).optional(),
  policies: PoliciesSchema.default(PoliciesSchema.parse({})),
});
/** What callers write (defaults optional). */
export type DelegatedTaskInput = z.input<typeof DelegatedTaskInputSchema>;
/** What the workflow works with (defaults filled in). */
export type DelegatedTask = z.output<typeof DelegatedTaskInputSchema>;

export interface DelegatedTaskResult {
  /** `message` when the agent answered with a Message and created no task. */
  kind: 'task' | 'message';
  state?: TaskState;
  taskId?: string;
  contextId?: string;
  artifacts: Artifact[];
  /** The agent's last status message (or the reply message), as text. */
  text?: string;
  message?: Message;
}
