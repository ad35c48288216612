// What zod cannot see in a plan: names that point nowhere, cycles, substitutions that name nothing,
// inputs missing or unknown. Every problem carries the path of the field, so a plan file's loader
// can name the line. Deterministic code only: PlanWorkflow runs the same checks on its input.
import type { Plan } from './input';
import { parseReference, placeholders } from './template';

export interface PlanProblem {
  /** Where in the document: ['steps', 1, 'agent']. */
  path: PropertyKey[];
  message: string;
}

/** Problems of the plan itself (agents, steps, dependencies, substitutions); none means it can run. */
export function checkPlan(plan: Plan): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const ids = new Map<string, number>();
  plan.steps.forEach((step, i) => {
    if (ids.has(step.id)) problems.push({ path: ['steps', i, 'id'], message: `step id "${step.id}" is used twice (also steps[${ids.get(step.id)}])` });
    else ids.set(step.id, i);
  });
  const agents = Object.keys(plan.agents);
  plan.steps.forEach((step, i) => {
    if (!(step.agent in plan.agents)) {
      problems.push({ path: ['steps', i, 'agent'], message: `unknown agent "${step.agent}" (agents: ${agents.join(', ') || 'none'})` });
    }
    step.dependsOn.forEach((dep, j) => {
      if (!ids.has(dep)) problems.push({ path: ['steps', i, 'dependsOn', j], message: `unknown step "${dep}" (steps: ${[...ids.keys()].join(', ')})` });
      else if (dep === step.id) problems.push({ path: ['steps', i, 'dependsOn', j], message: `step "${dep}" depends on itself` });
    });
  });
  const cycle = findCycle(plan);
  if (cycle) problems.push({ path: ['steps', ids.get(cycle[0]!) ?? 0, 'dependsOn'], message: `dependency cycle: ${cycle.join(' → ')}` });

  plan.steps.forEach((step, i) => {
    const before = cycle ? new Set<string>() : ancestors(plan, step.id);
    for (const expr of placeholders(step.text, step.data)) {
      const where = ['steps', i, step.text !== undefined && step.text.includes(expr) ? 'text' : 'data'];
      const ref = parseReference(expr);
      if ('error' in ref) problems.push({ path: where, message: ref.error });
      else if (ref.kind === 'input') {
        if (!(ref.name in plan.inputs)) {
          problems.push({ path: where, message: `{{${expr}}} names no input (inputs: ${Object.keys(plan.inputs).join(', ') || 'none'})` });
        }
      } else if (!ids.has(ref.step)) {
        problems.push({ path: where, message: `{{${expr}}} names no step (steps: ${[...ids.keys()].join(', ')})` });
      } else if (!cycle && !before.has(ref.step)) {
        problems.push({ path: where, message: `{{${expr}}} uses step "${ref.step}", which "${step.id}" does not depend on: add it to dependsOn` });
      }
    }
  });
  return problems;
}

/** The inputs a run gets: given values, then defaults; every required one present, nothing unknown. */
export function resolveInputs(plan: Plan, given: Record<string, string>): { inputs: Record<string, string>; problems: PlanProblem[] } {
  const problems: PlanProblem[] = [];
  const inputs: Record<string, string> = {};
  for (const name of Object.keys(given)) {
    if (!(name in plan.inputs)) problems.push({ path: ['inputs', name], message: `unknown input "${name}" (the plan takes: ${Object.keys(plan.inputs).join(', ') || 'none'})` });
  }
  for (const [name, spec] of Object.entries(plan.inputs)) {
    const value = given[name] ?? spec.default;
    if (value === undefined) problems.push({ path: ['inputs', name], message: `missing input "${name}"${spec.description ? ` (${spec.description})` : ''}: give it a value` });
    else inputs[name] = value;
  }
  return { inputs, problems };
}

/** Steps in an order that respects dependsOn (the plan's own order among independent steps). */
export function topologicalOrder(plan: Plan): string[] {
  const done = new Set<string>();
  const order: string[] = [];
  while (order.length < plan.steps.length) {
    const next = plan.steps.find((s) => !done.has(s.id) && s.dependsOn.every((d) => done.has(d)));
    if (!next) break; // a cycle: checkPlan reports it
    done.add(next.id);
    order.push(next.id);
  }
  return order;
}

/** Every step that `id` depends on, directly or through others. */
export function ancestors(plan: Plan, id: string): Set<string> {
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const visit = (sid: string): void => {
    for (const d of byId.get(sid)?.dependsOn ?? []) {
      if (seen.has(d)) continue;
      seen.add(d);
      visit(d);
    }
  };
  visit(id);
  return seen;
}

function findCycle(plan: Plan): string[] | undefined {
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const d of byId.get(id)?.dependsOn ?? []) {
      if (!byId.has(d) || d === id) continue;
      const c = visit(d);
      if (c) return c;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const s of plan.steps) {
    const c = visit(s.id);
    if (c) return c;
  }
  return undefined;
}
