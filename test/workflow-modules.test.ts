// A workflow start evaluates every module the workflow bundle imports again (the reusable V8
// context's per-workflow module cache), so zod and the A2A and plan schemas stay out of the
// workflows' imports (workflows/schemas.ts loads them only where needed), and the workflow checks
// its already-parsed input in plain code (workflows/delegated-task/check.ts), leaving anything
// else to the zod schema and its messages.
import { measureWorkflowModules } from '../bench/lib/workflow-modules';
import { checkDelegatedTaskInput } from '../workflows/delegated-task/check';
import { DelegatedTaskInputSchema, type DelegatedTaskInput } from '../workflows/delegated-task/input';

it('evaluates no zod and no schema module at a workflow start', async () => {
  const cost = await measureWorkflowModules(20);
  const schemaModules = cost.perWorkflow.filter((id) => /node_modules\/zod\/|a2a\/schema|workflows\/plan\/input|delegated-task\/input/.test(id));
  expect(schemaModules).toEqual([]);
  // The workflows' own modules are still there (the measurement sees the per-workflow cache).
  expect(cost.perWorkflow.some((id) => id.includes('workflows/delegated-task/workflow.ts'))).toBe(true);
  // Generous bound (it was 12 ms p50 with the schemas, 0.2 ms without, on a quiet 2-core machine).
  expect(cost.p50Ms).toBeLessThan(5);
}, 120_000);

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
