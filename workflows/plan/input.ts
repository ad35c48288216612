// The plan-file format: zod is the single source of its types. A plan names its inputs, its agents
// and its steps; each step becomes one DelegatedTaskWorkflow, run in dependency order.
// Deterministic code only: PlanWorkflow imports this file (no node modules, no I/O).
import { z } from 'zod';
import { AnyVersionAgentCardSchema } from '../../a2a/compat/v0_3/card';
import { DeadlinePolicySchema, DurationSchema, WatchPolicySchema } from '../delegated-task/input';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const STEP_ID = /^[a-z][a-z0-9_-]*$/;
const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

export const InputSpecSchema = z.strictObject({
  description: z.string().optional(),
  /** Used when the caller gives no value; an input without a default is required. */
  default: z.union([z.string(), z.number(), z.boolean()]).transform(String).optional(),
});
export type InputSpec = z.output<typeof InputSpecSchema>;

export const PlanAgentSchema = z
  .strictObject({
    /** Base URL; the agent card is read from /.well-known/agent-card.json under it. */
    url: z
      .url({ protocol: /^https?$/ })
      .refine((u) => !/^[a-z]+:\/\/[^/?#]*@/i.test(u), 'no user:password@ in the URL; name the variable holding the credential in credentialEnv')
      .optional(),
    /** The agent card: a file path relative to the plan file (plan files only), or the card itself. */
    card: z.union([z.string().min(1), AnyVersionAgentCardSchema]).optional(),
    /** The binding to use when the card offers both. */
    binding: z.enum(['jsonrpc', 'http+json']).optional(),
    /**
     * The A2A protocol version to speak: default 1.0 whenever the card offers it, else 0.3
     * (docs/a2a-client.md). '0.3' keeps talking v0.3 to an agent whose card offers both.
     */
    a2aVersion: z.enum(['1.0', '0.3']).optional(),
    /**
     * The environment variable (on the workers) holding the agent's bearer token; the token never
     * enters history. Only under PLANNER_AGENT_TOKEN_, and only in the operator's plan files
     * (plans/load.ts refuses it elsewhere; the worker checks again).
     */
    credentialEnv: z.string().regex(ENV_NAME, 'an environment variable name such as PLANNER_AGENT_TOKEN_DEPLOYER').optional(),
    /**
     * Set by the loader on an agent a caller named by its own url or card (or moved to another
     * origin with agentUrls): the worker sends it no configured credential, whatever its name.
     */
    callerNamed: z.literal(true).optional(),
    /**
     * Longest wait for one short call to the agent: GetTask, CancelTask, push configs, the lookups
     * of a retried send (default 2m, at most 10m). Raise it for an agent that is slow but live.
     */
    callTimeout: DurationSchema.optional(),
  })
  .refine((a) => (a.url === undefined) !== (a.card === undefined), { message: 'give the agent a url or a card (one of them)' });
export type PlanAgent = z.output<typeof PlanAgentSchema>;

export const StepSchema = z
  .strictObject({
    id: z.string().regex(STEP_ID, 'lower-case letters, digits, "_" or "-", starting with a letter'),
    agent: z.string().min(1),
    /** The message text; `{{inputs.x}}`, `{{steps.<id>.text}}` and `{{steps.<id>.artifacts.<name>}}` are substituted. */
    text: z.string().min(1).optional(),
    /** A data part; substitutions apply inside its strings. */
    data: z.unknown().optional(),
    dependsOn: z.array(z.string().min(1)).default([]),
    /** What happens when a question or an approval waits too long. */
    deadlines: z.strictObject({ input: DeadlinePolicySchema.optional(), auth: DeadlinePolicySchema.optional(), working: DeadlinePolicySchema.optional(), total: DeadlinePolicySchema.optional() }).optional(),
    maxAuthRounds: z.number().int().min(1).optional(),
    watch: WatchPolicySchema.partial().optional(),
    sendTimeout: DurationSchema.optional(),
    /** ask: a person answers (CLI, API, UI); forward: the upstream caller is asked when there is one, else ask. */
    onInput: z.enum(['ask', 'forward']).default('ask'),
    /** stop: cancel the other steps and fail the plan; continue: skip only the steps that depend on this one. */
    onFailure: z.enum(['stop', 'continue']).default('stop'),
  })
  .refine((s) => s.text !== undefined || s.data !== undefined, { message: 'a step needs text or data to send' });
export type Step = z.output<typeof StepSchema>;

/** A plan document as written (YAML or JSON). */
export const PlanSchema = z.strictObject({
  name: z.string().regex(NAME, 'letters, digits, ".", "_" or "-"'),
  description: z.string().optional(),
  inputs: z.record(z.string().regex(INPUT_NAME, 'an input name: letters, digits and "_"'), InputSpecSchema.nullable().transform((s) => s ?? {})).default({}),
  agents: z.record(z.string().regex(NAME, 'an agent name: letters, digits, ".", "_" or "-"'), PlanAgentSchema),
  steps: z.array(StepSchema).min(1),
});
export type PlanDocument = z.input<typeof PlanSchema>;
export type Plan = z.output<typeof PlanSchema>;

/** What PlanWorkflow starts with: a checked plan, its inputs resolved, its card files read in. */
export const PlanRunInputSchema = z.object({
  plan: PlanSchema,
  inputs: z.record(z.string(), z.string()),
  /** Where the plan came from (a file name, `api`, `a2a`), for the record. */
  source: z.string().optional(),
});
export type PlanRunInput = z.output<typeof PlanRunInputSchema>;
