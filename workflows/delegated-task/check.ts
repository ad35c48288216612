// The delegated task's input, checked when the workflow starts. The edge (API, CLI, client library,
// PlanWorkflow) has parsed it with DelegatedTaskInputSchema already, defaults filled in, so the
// common case is checked here in plain code, without evaluating zod in the workflow (see
// schemas.ts). Anything this check is not sure of (a start from the Temporal UI with defaults left
// out, an inline agent card, a bad value) goes to the zod schema, whose result and messages are
// the reference: this check only ever says "already parsed", never "invalid".
import { describeIssues } from '../../a2a/validate';
import type { DelegatedTask, DelegatedTaskInput } from './input';
import { delegatedTaskSchemas } from '../schemas';

export type CheckedInput = { ok: true; task: DelegatedTask } | { ok: false; problem: string };

export function checkDelegatedTaskInput(raw: DelegatedTaskInput): CheckedInput {
  if (isParsed(raw)) return { ok: true, task: raw as DelegatedTask };
  const parsed = delegatedTaskSchemas().DelegatedTaskInputSchema.safeParse(raw);
  return parsed.success ? { ok: true, task: parsed.data } : { ok: false, problem: describeIssues(parsed.error, raw) };
}

// The predicates below are the schema's rules in plain code; the plan's check (plan/check-input.ts) uses them too.
type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Only these keys (zod strips others, so an input with others is left to zod), `required` all present. */
export const keysWithin = (o: Obj, allowed: readonly string[], required: readonly string[] = []): boolean =>
  Object.keys(o).every((k) => allowed.includes(k)) && required.every((k) => o[k] !== undefined);
export const optional = (v: unknown, check: (v: unknown) => boolean): boolean => v === undefined || check(v);
export const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v.length > 0;
export const oneOf = (values: readonly string[]) => (v: unknown): boolean => typeof v === 'string' && values.includes(v);
export const intAtLeast = (min: number, max = Number.MAX_SAFE_INTEGER) => (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;

// The same rules as DurationSchema, AgentRefSchema, ... in delegated-task-input.ts.
const DURATION = /^\d+(\.\d+)?\s*(ms|s|m|h|d)$/;
export const isDuration = (v: unknown): boolean =>
  (Number.isSafeInteger(v) && (v as number) > 0) || (typeof v === 'string' && DURATION.test(v) && Number.parseFloat(v) > 0);
export const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

function isHttpUrl(v: unknown): boolean {
  if (typeof v !== 'string' || /^[a-z]+:\/\/[^/?#]*@/i.test(v)) return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** An agent's url and how to call it, as an AgentRef and a plan's agent both give them. */
export const AGENT_CALL_KEYS = ['url', 'binding', 'a2aVersion', 'credentialEnv', 'callerNamed', 'callTimeout'];
export const isAgentCall = (a: Obj): boolean =>
  isHttpUrl(a.url) &&
  optional(a.binding, oneOf(['jsonrpc', 'http+json'])) &&
  optional(a.a2aVersion, oneOf(['1.0', '0.3'])) &&
  optional(a.credentialEnv, (v) => typeof v === 'string' && ENV_NAME.test(v)) &&
  optional(a.callerNamed, (v) => v === true) &&
  optional(a.callTimeout, isDuration);

const isAgent = (a: unknown): boolean =>
  isObj(a) &&
  // An inline card is left to zod (AgentCardSchema).
  keysWithin(a, ['name', ...AGENT_CALL_KEYS], ['name', 'url']) &&
  typeof a.name === 'string' &&
  NAME.test(a.name) &&
  isAgentCall(a);

const isMessage = (m: unknown): boolean =>
  isObj(m) &&
  keysWithin(m, ['text', 'data', 'contextId', 'referenceTaskIds']) &&
  (m.text !== undefined || m.data !== undefined) &&
  optional(m.text, nonEmpty) &&
  optional(m.contextId, nonEmpty) &&
  optional(m.referenceTaskIds, (r) => Array.isArray(r) && r.every(nonEmpty));

export const isDeadline = (d: unknown): boolean =>
  isObj(d) &&
  keysWithin(d, ['after', 'onDeadline', 'remindEvery'], ['after', 'onDeadline']) &&
  isDuration(d.after) &&
  oneOf(['remind', 'fail', 'cancel'])(d.onDeadline) &&
  optional(d.remindEvery, isDuration);

const WATCH_DURATIONS = ['pollInitial', 'pollMax', 'idleTimeout', 'heartbeatTimeout', 'firstHeartbeatTimeout', 'firstLease', 'lease', 'inputPoll', 'inputPollMax', 'unreachableAfter', 'coalesce', 'pushBackstop'];
const WATCH_KEYS = [...WATCH_DURATIONS, 'mode', 'onUnreachable', 'maxEmptyCloses', 'push'];
export const isWatch = (w: unknown): boolean =>
  isObj(w) &&
  keysWithin(w, WATCH_KEYS, WATCH_KEYS) &&
  WATCH_DURATIONS.every((k) => isDuration(w[k])) &&
  oneOf(['auto', 'stream', 'poll'])(w.mode) &&
  oneOf(['alert', 'fail'])(w.onUnreachable) &&
  intAtLeast(1)(w.maxEmptyCloses) &&
  typeof w.push === 'boolean';

const POLICY_REQUIRED = ['maxAuthRounds', 'watch', 'sendTimeout', 'historyBudget', 'onAmbiguousSend'];
const isPolicies = (p: unknown): boolean =>
  isObj(p) &&
  keysWithin(p, [...POLICY_REQUIRED, 'input', 'auth', 'working', 'total'], POLICY_REQUIRED) &&
  optional(p.input, isDeadline) &&
  optional(p.auth, isDeadline) &&
  optional(p.working, isDeadline) &&
  optional(p.total, isDeadline) &&
  intAtLeast(1)(p.maxAuthRounds) &&
  isWatch(p.watch) &&
  isDuration(p.sendTimeout) &&
  intAtLeast(100, 40_000)(p.historyBudget) &&
  oneOf(['ask', 'resend'])(p.onAmbiguousSend);

/** The input as DelegatedTaskInputSchema outputs it: every default present, nothing it would strip or reject. */
function isParsed(raw: unknown): boolean {
  return (
    isObj(raw) &&
    keysWithin(raw, ['agent', 'message', 'planId', 'stepId', 'policies'], ['agent', 'message', 'policies']) &&
    isAgent(raw.agent) &&
    isMessage(raw.message) &&
    optional(raw.planId, nonEmpty) &&
    optional(raw.stepId, nonEmpty) &&
    isPolicies(raw.policies)
  );
}
