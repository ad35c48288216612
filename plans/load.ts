// Loading a plan: YAML or JSON text → zod → the checks of check.ts → a PlanRunInput that
// PlanWorkflow can start with. Every problem names the field and, for a file, the line.
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import { refusedAgentUrls, type OutboundPolicy } from '../a2a/outbound-policy';
import { parseAgentCard } from '../a2a/compat/v0_3/card';
import { explainIssues, formatPath } from '../a2a/validate';
import { checkPlan, resolveInputs, type PlanProblem } from '../workflows/plan/check';
import { checkAgentTrust, overriddenAgent, withRegisteredAgents, type PlanTrust } from './caller-agents';
import { PlanSchema, type Plan, type PlanRunInput } from '../workflows/plan/input';

/** A plan that cannot run: every problem found, each naming its field (and line, for a file). */
export class PlanError extends Error {
  override readonly name = 'PlanError';
  constructor(
    readonly source: string,
    readonly problems: Array<PlanProblem & { line?: number }>,
  ) {
    super(
      `${source}: ${problems.length === 1 ? '' : `${problems.length} problems: `}` +
        problems.map((p) => `${p.line !== undefined ? `line ${p.line}: ` : ''}${formatPath(p.path) || '(document)'}: ${p.message}`).join('; '),
    );
  }
}

export interface LoadOptions {
  /** The inputs given by the caller (CLI --input, API body); defaults fill the rest. */
  inputs?: Record<string, string>;
  /** Agent base URLs that replace the plan's own (CLI --agent-url NAME=URL), e.g. for staging. */
  agentUrls?: Record<string, string>;
  /** Where card files are read from; plan documents that did not come from a file have none. */
  baseDir?: string;
  /** false: a required input left out is not a problem (checking a plan file before its run). */
  requireInputs?: boolean;
  /** Which agent addresses may be called; default the process's (PLANNER_AGENT_ALLOW). */
  outbound?: OutboundPolicy;
  /**
   * A real folder that card files must lie in after symlinks (the server's plan folder,
   * plans/plan-folder.ts); messages then name card files relative to it, never by a server path.
   */
  confineTo?: string;
  /**
   * Set by the servers: who wrote the document and the agentUrls, and what callers may name
   * (caller-agents.ts). Unset: all of it is the operator's (the CLI, the client library).
   */
  trust?: PlanTrust;
}

/** Reads and checks a plan file (.yaml, .yml or .json); `name` is how messages name it (default: the path). */
export function loadPlanFile(path: string, opts: Omit<LoadOptions, 'baseDir'> & { name?: string } = {}): PlanRunInput {
  const { name = path, ...load } = opts;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a plan file' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    throw new PlanError(name, [{ path: [], message: `cannot read the plan: ${why}` }]);
  }
  return planFromText(text, name, { ...load, baseDir: dirname(resolve(path)) });
}

/** Checks a plan given as text, YAML or JSON. */
export function planFromText(text: string, source: string, opts: LoadOptions = {}): PlanRunInput {
  const lines = new LineCounter();
  // JSON is YAML 1.2 flow syntax: one parser gives both formats line numbers.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new PlanError(
      source,
      doc.errors.map((e) => ({ path: [], line: e.linePos?.[0]?.line, message: `not valid YAML: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}` })),
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS(); // aliases resolve here (an unknown anchor, a billion laughs)
  } catch (e) {
    throw new PlanError(source, [{ path: [], message: `not valid YAML: ${(e as Error).message}` }]);
  }
  const lineOf = (path: PropertyKey[]): number | undefined => lineAt(doc, lines, path);
  return checkedRun(raw, source, opts, lineOf);
}

/** Checks a plan given as a value (an API body, an A2A data part); problems name the field only. */
export function planFromValue(raw: unknown, source: string, opts: LoadOptions = {}): PlanRunInput {
  return checkedRun(raw, source, opts, () => undefined);
}

function checkedRun(raw: unknown, source: string, opts: LoadOptions, lineOf: (path: PropertyKey[]) => number | undefined): PlanRunInput {
  const fail = (problems: PlanProblem[]): never => {
    throw new PlanError(source, problems.map((p) => ({ ...p, line: lineOf(p.path) })));
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail([{ path: [], message: 'a plan is a mapping with name, agents and steps' }]);
  const registered = withRegisteredAgents(raw as Record<string, unknown>, opts.trust);
  if (registered.problems.length > 0) fail(registered.problems);
  const parsed = PlanSchema.safeParse(registered.raw);
  if (!parsed.success) {
    fail(
      parsed.error.issues.map((issue) => {
        const p = explainIssues([issue], raw);
        if (issue.code !== 'unrecognized_keys') return { path: p.keys, message: p.detail };
        const names = issue.keys.map((k) => `"${k}"`).join(', ');
        return { path: [...p.keys, issue.keys[0]!], message: `unknown field${issue.keys.length > 1 ? 's' : ''} ${names}` };
      }),
    );
  }
  const trusted = checkAgentTrust(parsed.data!, registered.own, opts.trust);
  if (trusted.problems.length > 0) fail(trusted.problems);
  const plan = withAgents(trusted.plan, opts, fail);
  const problems = checkPlan(plan);
  const resolved = resolveInputs(plan, opts.inputs ?? {});
  const { inputs } = resolved;
  const inputProblems = opts.requireInputs === false ? resolved.problems.filter((p) => !(String(p.path[1]) in plan.inputs)) : resolved.problems;
  if (problems.length + inputProblems.length > 0) {
    // A value given by the caller has no line in the file; a missing one points at its declaration.
    const given = new Set(Object.keys(opts.inputs ?? {}));
    throw new PlanError(source, [
      ...problems.map((p) => ({ ...p, line: lineOf(p.path) })),
      ...inputProblems.map((p) => ({ ...p, line: given.has(String(p.path[1])) ? undefined : lineOf(p.path) })),
    ]);
  }
  return { plan, inputs, source };
}

/** Applies URL overrides and reads card files, so the workflow's input is complete in itself. */
function withAgents(plan: Plan, opts: LoadOptions, fail: (p: PlanProblem[]) => never): Plan {
  const agents = { ...plan.agents };
  for (const [name, url] of Object.entries(opts.agentUrls ?? {})) {
    if (!(name in agents)) fail([{ path: ['agents'], message: `--agent-url names agent "${name}", which the plan does not have (agents: ${Object.keys(agents).join(', ')})` }]);
    if (!/^https?:\/\/[^@/?#]+(\/|$)/.test(url)) fail([{ path: ['agents', name, 'url'], message: `the URL given for agent "${name}" is not an http(s) URL without credentials: ${url}` }]);
    const overridden = overriddenAgent(name, agents[name]!, url, opts.trust);
    if (overridden.problem) fail([overridden.problem]);
    agents[name] = overridden.agent;
  }
  for (const [name, agent] of Object.entries(agents)) {
    if (typeof agent.card !== 'string') continue;
    if (!opts.baseDir) fail([{ path: ['agents', name, 'card'], message: 'a card file can only be named in a plan file; give the card itself or a url' }]);
    const file = resolve(opts.baseDir!, agent.card);
    const shown = opts.confineTo === undefined ? file : agent.card;
    if (opts.confineTo !== undefined && pathInside(opts.confineTo, file) === undefined) {
      fail([{ path: ['agents', name, 'card'], message: `the card file ${shown} does not exist inside the plan folder (after symlinks)` }]);
    }
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      fail([{ path: ['agents', name, 'card'], message: `cannot read the card file ${shown}: ${(e as NodeJS.ErrnoException).code ?? 'read error'}` }]);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // JSON.parse's message quotes the file's start: not shown, whatever the file is.
      fail([{ path: ['agents', name, 'card'], message: `the card file ${shown} is not valid JSON` }]);
    }
    // A v0.3 card is read as the v1.0 card of the same agent (a2a/compat/v0_3/card.ts).
    const card = parseAgentCard(json);
    if (!card.ok) fail([{ path: ['agents', name, 'card'], message: `the card file ${shown} is not an agent card: ${card.problem.path || '(root)'}: ${card.problem.detail}` }]);
    agents[name] = { ...agent, card: card.value };
  }
  // The address policy, judged here so a plan naming an internal address never starts (and again on connect).
  const refused = Object.entries(agents).flatMap(([name, agent]) =>
    refusedAgentUrls(agent, opts.outbound).map((p) => ({ path: ['agents', name, ...p.path], message: p.message })),
  );
  if (refused.length > 0) fail(refused);
  return { ...plan, agents };
}

/** The line of the deepest field that exists on the path (its key's line; a missing field: its parent's). */
function lineAt(doc: Document, lines: LineCounter, path: PropertyKey[]): number | undefined {
  for (let n = path.length; n > 0; n--) {
    const parent = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1) as Array<string | number>, true);
    const key = path[n - 1];
    let range: readonly number[] | null | undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key));
      range = isScalar(pair?.key) ? pair.key.range : undefined;
    } else if (isSeq(parent) && typeof key === 'number') range = (parent.items[key] as { range?: number[] } | undefined)?.range;
    if (range) return lines.linePos(range[0]!).line;
  }
  const root = doc.contents as { range?: number[] } | null;
  return root?.range ? lines.linePos(root.range[0]!).line : undefined;
}

/** `file` relative to the real folder `root` once symlinks are resolved; undefined when it is missing or lies outside. */
export function pathInside(root: string, file: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return undefined;
  }
  const rel = relative(root, real);
  return rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : rel;
}
