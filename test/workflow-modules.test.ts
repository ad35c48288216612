// A workflow start evaluates every module the workflow bundle imports again (the reusable V8
// context's per-workflow module cache) unless the bundle preloads it, so the planner's bundle
// preloads its workflows and interceptors (worker/workflow-bundle.ts). The SDK freezes what a
// preloaded module exports, and shares it across workflows, so none of them may keep state at module
// scope. zod and the A2A and plan schemas are loaded only where needed (workflows/schemas.ts), per
// workflow, so the workflow checks its already-parsed input in plain code
// (workflows/delegated-task/check.ts), leaving anything else to the zod schema and its messages.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { measureWorkflowModules, type ModuleCost } from '../bench/lib/workflow-modules';
import { checkDelegatedTaskInput } from '../workflows/delegated-task/check';
import { DelegatedTaskInputSchema, type DelegatedTaskInput } from '../workflows/delegated-task/input';

let cost: ModuleCost;
beforeAll(async () => {
  cost = await measureWorkflowModules(20);
}, 120_000);

it('evaluates none of the workflow modules at a workflow start: the bundle preloads them', () => {
  const { perWorkflow, shared, p50Ms } = cost;
  expect(perWorkflow).toEqual([]);
  // The workflows' own modules are there, evaluated once (the measurement sees the shared cache).
  expect(shared).toEqual(expect.arrayContaining(['./workflows/delegated-task/workflow.ts', './workflows/plan/workflow.ts', './workflows/tracing.ts']));
  // zod and the schemas stay out of them: a workflow that needs one require()s it.
  expect(shared.filter((id) => /node_modules\/zod\/|a2a\/schema|workflows\/plan\/input|delegated-task\/input/.test(id))).toEqual([]);
  // Generous bound (12 ms p50 with the schemas, 0.2-0.9 ms with the modules, ~0 preloaded, on a quiet 2-core machine).
  expect(p50Ms).toBeLessThan(5);
});

/**
 * What a module declares at its top level that one workflow could change and another then see: a
 * `let` or `var`, or a Map or Set (the SDK's freeze leaves their entries writable) not typed read-only.
 */
function moduleState(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    for (const d of list.declarations) {
      const name = d.name.getText(source);
      if (!(list.flags & ts.NodeFlags.Const)) found.push(`${file}: ${name} (let/var)`);
      else if (d.initializer && ts.isNewExpression(d.initializer) && /^(Weak)?(Map|Set)$/.test(d.initializer.expression.getText(source)) && !/^Readonly(Map|Set)</.test(d.type?.getText(source) ?? '')) {
        found.push(`${file}: ${name} (a ${d.initializer.expression.getText(source)} not typed Readonly)`);
      }
    }
  }
  return found;
}

it('keeps no state at module scope in any preloaded module of the planner', () => {
  const root = join(__dirname, '..');
  const own = cost.shared.filter((id) => id.startsWith('./') && !id.startsWith('./node_modules/'));
  expect(own.length).toBeGreaterThan(30);
  expect(own.flatMap((id) => moduleState(join(root, id)))).toEqual([]);
  // The rule sees what it forbids.
  expect(moduleState(join(root, 'test', 'support', 'module-state-example.ts'))).toEqual([
    expect.stringContaining('counter (let/var)'),
    expect.stringContaining('seen (a Set not typed Readonly)'),
  ]);
});

const edgeInputs: DelegatedTaskInput[] = [
  { agent: { name: 'deployer', url: 'http://127.0.0.1:9/' }, message: { text: 'Deploy build 1' } },
  {
    agent: { name: 'a.b_c-1', url: 'https://agents.example/x?y=1', binding: 'http+json', credentialEnv: 'DEPLOYER_TOKEN' },
    message: { data: { build: 1 }, contextId: 'ctx', referenceTaskIds: ['t1'] },
    planId: 'plan-1',
    stepId: 'deploy',
    policies: { input: { after: '1h', onDeadline: 'remind', remindEvery: 60_000 }, auth: { after: '2d', onDeadline: 'cancel' }, watch: { mode: 'poll', coalesce: '0.5s' }, historyBudget: 100 },
  },
];

it.each(edgeInputs.map((raw, i) => [i, raw] as const))('takes input %i as the edge parsed it, unchanged, and as zod would', (_i, raw) => {
  const parsed = DelegatedTaskInputSchema.parse(raw);
  const checked = checkDelegatedTaskInput(parsed);
  // The same object: the plain check accepted it without zod.
  expect(checked).toEqual({ ok: true, task: parsed });
  expect(checked.ok && checked.task).toBe(parsed);
  expect(DelegatedTaskInputSchema.parse(parsed)).toEqual(parsed);
});

it('fills the defaults with zod when they are left out (a start from the Temporal UI)', () => {
  const raw = { agent: { name: 'deployer', url: 'http://127.0.0.1:9/' }, message: { text: 'go' } };
  const checked = checkDelegatedTaskInput(raw);
  expect(checked).toEqual({ ok: true, task: DelegatedTaskInputSchema.parse(raw) });
  expect(checked.ok && checked.task.policies.watch.mode).toBe('auto');
});

it.each([
  ['a bad duration', (p: Record<string, unknown>) => ({ ...p, policies: { ...(p.policies as object), sendTimeout: '5 minutes' } }), /policies\.sendTimeout/],
  ['credentials in the URL', (p: Record<string, unknown>) => ({ ...p, agent: { name: 'deployer', url: 'http://u:p@127.0.0.1:9/' } }), /user:password@/],
  ['an unknown watch mode', (p: Record<string, unknown>) => ({ ...p, policies: { ...(p.policies as { watch: object }), watch: { ...(p.policies as { watch: object }).watch, mode: 'push' } } }), /policies\.watch\.mode/],
  ['a history budget out of range', (p: Record<string, unknown>) => ({ ...p, policies: { ...(p.policies as object), historyBudget: 50 } }), /policies\.historyBudget/],
  ['a message with neither text nor data', (p: Record<string, unknown>) => ({ ...p, message: { contextId: 'c' } }), /text or data/],
])('rejects %s in otherwise parsed input with the schema\'s message', (_what, spoil, message) => {
  const parsed = DelegatedTaskInputSchema.parse(edgeInputs[0]) as unknown as Record<string, unknown>;
  const checked = checkDelegatedTaskInput(spoil(parsed) as DelegatedTaskInput);
  expect(checked.ok).toBe(false);
  expect(!checked.ok && checked.problem).toMatch(message);
});
