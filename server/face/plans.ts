// Which plan an upstream message runs: a plan document in a data part, or a skill, which the
// configuration maps to a plan file (each plan file in PLANNER_PLAN_DIR is one skill). Steps that
// do not say who answers their questions forward them to the upstream caller (onInput: forward).
// Plan files resolve inside the folder after symlinks (a link leading out is no skill), their card
// files too, and no message names a server path (plans/plan-folder.ts).
import { readFileSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { PlanError, planFromValue } from '../../plans/load';
import { planFilesInFolder, realFolder } from '../../plans/plan-folder';
import type { PlanRunInput } from '../../workflows/plan/input';
import type { PlanTrust } from '../../plans/caller-agents';
import type { AgentSkill, Message, Part } from '../../a2a/schema';

export interface PlanSkill {
  skill: AgentSkill;
  /** The file's real path, inside `folder`. */
  file: string;
  /** Its name in the folder, as messages show it. */
  name: string;
  /** The plan folder's real path (card files must lie inside it). */
  folder: string;
}

/** The plan files of the folder, as skills (a file that does not parse or leads out is left out and reported by name). */
export function planSkills(dir: string, onBadFile: (file: string, why: string) => void = () => {}): PlanSkill[] {
  let folder: string;
  try {
    folder = realFolder(dir);
  } catch {
    return [];
  }
  return planFilesInFolder(folder, onBadFile).flatMap(({ name: n, path: file }): PlanSkill[] => {
    try {
      const raw = parseYaml(readFileSync(file, 'utf8')) as { name?: unknown; description?: unknown; inputs?: Record<string, { description?: string } | null> };
      const id = typeof raw.name === 'string' ? raw.name : basename(n, extname(n));
      const inputs = Object.entries(raw.inputs ?? {}).map(([k, v]) => `${k}${v?.description ? ` (${v.description})` : ''}`);
      return [
        {
          file,
          name: n,
          folder,
          skill: {
            id,
            name: id,
            description: `${typeof raw.description === 'string' ? raw.description : `The plan ${id}`}. Inputs, as a data part {"inputs": {...}}: ${inputs.join(', ') || 'none'}.`,
            tags: ['plan'],
            examples: [`{"metadata": {"skill": "${id}"}, "parts": [{"text": "run ${id}"}, {"data": {"inputs": {}}}]}`],
            inputModes: ['text/plain', 'application/json'],
            outputModes: ['application/json', 'text/plain'],
          },
        },
      ];
    } catch (e) {
      onBadFile(n, (e as Error).message);
      return [];
    }
  });
}

/** The skill for a plan document sent in a data part. */
export const PLAN_DOCUMENT_SKILL: AgentSkill = {
  id: 'plan-document',
  name: 'Run a plan document',
  description: 'Send a plan document (the plan-file format, docs/plans.md) as a data part {"plan": {...}, "inputs": {...}}; the planner runs it and relays its agents\' questions and authorization requests.',
  tags: ['plan'],
  // Its text part is the input `request`, as for a plan file's skill.
  inputModes: ['application/json', 'text/plain'],
  outputModes: ['application/json', 'text/plain'],
};

/** Thrown when the message names no runnable plan; `path` is the request field at fault. */
export class PlanSelectionError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A data part's object, when it is one. */
function dataObjects(parts: Part[]): Array<{ index: number; data: Record<string, unknown> }> {
  return parts.flatMap((p, index) => ('data' in p && isObject(p.data) ? [{ index, data: p.data }] : []));
}

function stringInputs(v: unknown, path: string): Record<string, string> {
  if (v === undefined) return {};
  if (!isObject(v)) throw new PlanSelectionError(path, 'inputs must be an object of name: value');
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x : JSON.stringify(x)]));
}

/** Steps that do not name onInput forward their questions upstream (the default for plans started over A2A). */
function forwardByDefault(doc: unknown): unknown {
  if (!isObject(doc) || !Array.isArray(doc.steps)) return doc;
  return { ...doc, steps: doc.steps.map((s: unknown) => (isObject(s) && s.onInput === undefined ? { ...s, onInput: 'forward' } : s)) };
}

export interface SelectOptions {
  skills: PlanSkill[];
  /** Agent base URLs that replace the plans' own, by agent name (PLANNER_A2A_AGENT_URLS). */
  agentUrls: Record<string, string>;
  /** PLANNER_CALLER_AGENTS and PLANNER_AGENTS: what a plan document in a data part (a caller's) may name. */
  callerRules: Pick<PlanTrust, 'callerAgents' | 'registered'>;
}

/**
 * The plan a first message runs, with its inputs: a data part {plan, inputs?} (or a bare plan
 * document), else the skill named in the message's or the request's metadata.skill (or the only
 * skill, when there is one). The message's text is the input `request` when the plan declares it.
 */
export function selectPlan(message: Message, requestMetadata: Record<string, unknown> | undefined, opts: SelectOptions): PlanRunInput {
  const objects = dataObjects(message.parts);
  const withPlan = objects.find((o) => isObject(o.data.plan) || (Array.isArray(o.data.steps) && isObject(o.data.agents)));
  const withInputs = objects.find((o) => o.data.inputs !== undefined);
  const inputs = stringInputs(withInputs?.data.inputs, `message.parts[${withInputs?.index ?? 0}].data.inputs`);
  const text = message.parts.flatMap((p) => ('text' in p ? [p.text] : [])).join('\n');
  const withText = (declared: Record<string, unknown>): Record<string, string> =>
    'request' in declared && inputs.request === undefined && text !== '' ? { ...inputs, request: text } : inputs;
  const load = (doc: unknown, source: string, files?: { baseDir: string; confineTo: string }, pathPrefix = ''): PlanRunInput => {
    const declared = isObject(doc) && isObject(doc.inputs) ? doc.inputs : {};
    const agentUrls = Object.fromEntries(Object.entries(opts.agentUrls).filter(([name]) => isObject(doc) && isObject(doc.agents) && Object.hasOwn(doc.agents, name)));
    // A skill's plan file is the operator's; a document in a data part is the caller's. The face's agentUrls are the operator's.
    const trust: PlanTrust = { ...opts.callerRules, document: files ? 'operator' : 'caller', agentUrls: 'operator' };
    try {
      return { ...planFromValue(forwardByDefault(doc), source, { inputs: withText(declared), agentUrls, trust, ...(files ?? {}) }), source: 'a2a' };
    } catch (e) {
      if (e instanceof PlanError) throw new PlanSelectionError(pathPrefix || 'message', e.message);
      throw e;
    }
  };
  if (withPlan) {
    const doc = isObject(withPlan.data.plan) ? withPlan.data.plan : withPlan.data;
    return load(doc, 'a2a plan document', undefined, `message.parts[${withPlan.index}].data${isObject(withPlan.data.plan) ? '.plan' : ''}`);
  }
  const named = message.metadata?.skill ?? requestMetadata?.skill;
  const ids = opts.skills.map((s) => s.skill.id);
  let chosen: PlanSkill | undefined;
  if (named !== undefined) {
    chosen = opts.skills.find((s) => s.skill.id === named);
    if (!chosen) throw new PlanSelectionError(message.metadata?.skill !== undefined ? 'message.metadata.skill' : 'metadata.skill', `no skill ${JSON.stringify(named)}; skills: ${ids.join(', ') || 'none'}`);
  } else if (opts.skills.length === 1) chosen = opts.skills[0];
  if (!chosen) {
    throw new PlanSelectionError('message.parts', `name a skill in metadata.skill (${ids.join(', ') || 'no plan files are configured'}) or send a plan document in a data part {"plan": {...}}`);
  }
  const doc = parseYaml(readFileSync(chosen.file, 'utf8')) as unknown;
  return load(doc, chosen.name, { baseDir: dirname(chosen.file), confineTo: chosen.folder }, 'message');
}

/** PLANNER_A2A_AGENT_URLS: a JSON object of agent name → base URL, applied to every plan the face starts. */
export function agentUrlsFrom(env: NodeJS.ProcessEnv): Record<string, string> {
  const raw = env.PLANNER_A2A_AGENT_URLS;
  if (!raw) return {};
  const v = JSON.parse(raw) as unknown;
  if (!isObject(v) || !Object.values(v).every((x) => typeof x === 'string')) throw new Error('PLANNER_A2A_AGENT_URLS must be a JSON object of agent name: URL');
  return v as Record<string, string>;
}
