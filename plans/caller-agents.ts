// Which agents a plan may name, and which of them may get a credential, depending on who wrote it.
// Agents and their credentials are the operator's: a plan file is the operator's, a plan document
// sent on the API or the A2A face (and the agentUrls of an API call) is a caller's. A caller's plan
// uses the operator's registered agents by name (PLANNER_AGENTS); an agent of its own (a url, an
// inline card, an agentUrls override to another origin) is allowed only with
// PLANNER_CALLER_AGENTS=any, and is marked callerNamed so the worker sends it no configured
// credential. credentialEnv is the operator's alone: refused in a caller's document, limited to
// PLANNER_AGENT_TOKEN_* everywhere, and bound to the origin of the URL its plan file names.
import { credentialEnvProblem } from '../a2a/credentials';
import type { PlanProblem } from '../workflows/plan/check';
import type { Plan, PlanAgent } from '../workflows/plan/input';

/** Who wrote what a plan is made of, for plans that reach the planner from a caller (the servers). */
export interface PlanTrust {
  /** PLANNER_CALLER_AGENTS: `registered` (a caller may name only registered agents) or `any`. */
  callerAgents: 'registered' | 'any';
  /** PLANNER_AGENTS: the operator's agents a caller may name, name → base URL. */
  registered: Readonly<Record<string, string>>;
  /** Who wrote the plan document: the operator (a plan file) or a caller (a body, a data part). */
  document: 'operator' | 'caller';
  /** Who chose the agentUrls overrides: the operator (CLI, PLANNER_A2A_AGENT_URLS) or a caller (an API body). */
  agentUrls: 'operator' | 'caller';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function registeredList(trust: PlanTrust): string {
  const names = Object.keys(trust.registered);
  return names.length > 0 ? `registered: ${names.join(', ')}` : 'none is registered';
}

/**
 * A caller's document names a registered agent by leaving out url and card: the registered URL is
 * filled in here, before the schema sees the document. Returns the document and the names of the
 * agents the caller gave a url or card of its own.
 */
export function withRegisteredAgents(raw: Record<string, unknown>, trust: PlanTrust | undefined): { raw: Record<string, unknown>; own: Set<string>; problems: PlanProblem[] } {
  const own = new Set<string>();
  if (trust?.document !== 'caller' || !isObject(raw.agents)) return { raw, own, problems: [] };
  const agents: Record<string, unknown> = {};
  const problems: PlanProblem[] = [];
  for (const [name, agent] of Object.entries(raw.agents)) {
    agents[name] = agent;
    if (!isObject(agent)) continue;
    if (agent.url !== undefined || agent.card !== undefined) {
      own.add(name);
      continue;
    }
    const url = Object.hasOwn(trust.registered, name) ? trust.registered[name] : undefined;
    if (url === undefined) {
      problems.push({
        path: ['agents', name],
        message: `agent "${name}" is not one the operator registered (PLANNER_AGENTS; ${registeredList(trust)}); name a registered agent${trust.callerAgents === 'any' ? ', or give your own agent a url or card' : ''}`,
      });
      continue;
    }
    agents[name] = { ...agent, url };
  }
  return { raw: { ...raw, agents }, own, problems };
}

/**
 * The rules of who may name what, on a parsed plan: credentialEnv only under the prefix and only in
 * the operator's plan files; a caller's own agents only with PLANNER_CALLER_AGENTS=any, never under
 * a registered name, and marked callerNamed.
 */
export function checkAgentTrust(plan: Plan, own: ReadonlySet<string>, trust: PlanTrust | undefined): { plan: Plan; problems: PlanProblem[] } {
  const problems: PlanProblem[] = [];
  const agents: Record<string, PlanAgent> = {};
  for (const [name, agent] of Object.entries(plan.agents)) {
    agents[name] = agent;
    if (agent.credentialEnv !== undefined) {
      if (trust?.document === 'caller') {
        problems.push({
          path: ['agents', name, 'credentialEnv'],
          message: `only the operator's plan files may name a credential variable; a plan sent by a caller cannot give agent "${name}" one (${agent.credentialEnv})`,
        });
      } else {
        const problem = credentialEnvProblem(agent.credentialEnv);
        if (problem) problems.push({ path: ['agents', name, 'credentialEnv'], message: problem });
      }
    }
    if (!own.has(name) || !trust) continue;
    const field = agent.url !== undefined ? 'url' : 'card';
    if (Object.hasOwn(trust.registered, name)) {
      problems.push({
        path: ['agents', name, field],
        message: `"${name}" is an agent the operator registered (PLANNER_AGENTS); leave out url and card to use it, or give your own agent another name`,
      });
    } else if (trust.callerAgents !== 'any') {
      problems.push({
        path: ['agents', name, field],
        message: `agent "${name}": this planner runs only the operator's registered agents for callers (PLANNER_CALLER_AGENTS=registered; ${registeredList(trust)}); leave out url and card and name one of them`,
      });
    } else agents[name] = { ...agent, callerNamed: true };
  }
  return { plan: { ...plan, agents }, problems };
}

function originsOf(agent: PlanAgent): string[] {
  const urls = agent.url !== undefined ? [agent.url] : isObject(agent.card) ? agent.card.supportedInterfaces.map((i) => i.url) : [];
  return urls.flatMap((u) => (URL.canParse(u) ? [new URL(u).origin] : []));
}

/**
 * What an agentUrls override does to an agent: a caller may override only with
 * PLANNER_CALLER_AGENTS=any, and an override to another origin makes the agent a caller-named one;
 * an agent with a credentialEnv keeps its origin (its token is bound to the URL its plan file names).
 */
export function overriddenAgent(name: string, agent: PlanAgent, url: string, trust: PlanTrust | undefined): { agent: PlanAgent; problem?: PlanProblem } {
  const path = ['agents', name, 'url'];
  if (trust?.agentUrls === 'caller' && trust.callerAgents !== 'any') {
    return { agent, problem: { path, message: `agentUrls.${name}: a caller may not choose an agent's URL on this planner (PLANNER_CALLER_AGENTS=registered)` } };
  }
  const moved = !originsOf(agent).includes(new URL(url).origin);
  if (moved && agent.credentialEnv !== undefined) {
    return {
      agent,
      problem: {
        path,
        message: `agentUrls.${name}: ${new URL(url).origin} is not the origin the plan names for agent "${name}", and its credentialEnv token goes only there; point the plan file at the new URL instead`,
      },
    };
  }
  const { card: _card, ...rest } = agent;
  return { agent: { ...rest, url, ...(moved && trust?.agentUrls === 'caller' ? { callerNamed: true as const } : {}) } };
}
