// PlanWorkflow's input, checked in plain code when the edge (plans/load.ts, the API, the face, a
// schedule) has parsed it with PlanRunInputSchema already: evaluating zod and the schemas in the
// workflow cost ~15 ms of CPU at every plan start (schemas.ts). As for the delegated task
// (delegated-task/check.ts), this only ever says "already parsed": whatever it is not sure of (an
// inline agent card, defaults left out, a bad value) goes to the zod schema, whose result and
// messages are the reference.
import { AGENT_CALL_KEYS, NAME, intAtLeast, isAgentCall, isDeadline, isDuration, isObj, isWatch, keysWithin, nonEmpty, oneOf, optional } from '../delegated-task/check';
import type { PlanRunInput } from './input';

// The same rules as the regexes and schemas of input.ts.
const STEP_ID = /^[a-z][a-z0-9_-]*$/;
const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** PlanRunInputSchema's output, when `raw` is already that (keys it would strip dropped), else undefined. */
export function alreadyParsedPlanInput(raw: unknown): PlanRunInput | undefined {
  if (!isObj(raw) || !isPlan(raw.plan) || !isRecord(raw.inputs, () => true, (v) => typeof v === 'string') || !optional(raw.source, (s) => typeof s === 'string')) return undefined;
  // PlanRunInputSchema is not strict: it drops what the face puts beside the plan.
  return { plan: raw.plan, inputs: raw.inputs, ...(raw.source !== undefined ? { source: raw.source } : {}) } as PlanRunInput;
}

const isRecord = (v: unknown, key: (k: string) => boolean, value: (v: unknown) => boolean): v is Record<string, unknown> =>
  isObj(v) && Object.entries(v).every(([k, x]) => key(k) && value(x));

const isPlan = (p: unknown): boolean =>
  isObj(p) &&
  keysWithin(p, ['name', 'description', 'inputs', 'agents', 'steps'], ['name', 'inputs', 'agents', 'steps']) &&
  typeof p.name === 'string' &&
  NAME.test(p.name) &&
  optional(p.description, (d) => typeof d === 'string') &&
  isRecord(p.inputs, (k) => INPUT_NAME.test(k), isInputSpec) &&
  isRecord(p.agents, (k) => NAME.test(k), isAgent) &&
  Array.isArray(p.steps) &&
  p.steps.length > 0 &&
  p.steps.every(isStep);

// The default as the schema outputs it: a string (it turns numbers and booleans into strings).
const isInputSpec = (s: unknown): boolean =>
  isObj(s) && keysWithin(s, ['description', 'default']) && optional(s.description, (d) => typeof d === 'string') && optional(s.default, (d) => typeof d === 'string');

// An agent by url; one given by its card is left to zod (the card's schema).
const isAgent = (a: unknown): boolean => isObj(a) && keysWithin(a, AGENT_CALL_KEYS, ['url']) && isAgentCall(a);

const DEADLINES = ['input', 'auth', 'working', 'total'];
const isStep = (s: unknown): boolean =>
  isObj(s) &&
  keysWithin(s, ['id', 'agent', 'text', 'data', 'dependsOn', 'deadlines', 'maxAuthRounds', 'watch', 'sendTimeout', 'onInput', 'onFailure'], ['id', 'agent', 'dependsOn', 'onInput', 'onFailure']) &&
  typeof s.id === 'string' &&
  STEP_ID.test(s.id) &&
  nonEmpty(s.agent) &&
  (s.text !== undefined || s.data !== undefined) &&
  optional(s.text, nonEmpty) &&
  Array.isArray(s.dependsOn) &&
  s.dependsOn.every(nonEmpty) &&
  optional(s.deadlines, (d) => isObj(d) && keysWithin(d, DEADLINES) && DEADLINES.every((k) => optional(d[k], isDeadline))) &&
  optional(s.maxAuthRounds, intAtLeast(1)) &&
  // The schema fills every watch default in a step's partial watch.
  optional(s.watch, isWatch) &&
  optional(s.sendTimeout, isDuration) &&
  oneOf(['ask', 'forward'])(s.onInput) &&
  oneOf(['stop', 'continue'])(s.onFailure);
