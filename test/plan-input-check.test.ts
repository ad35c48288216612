// PlanWorkflow starts without evaluating zod when its input was parsed at the edge (the plain
// check, workflows/plan/check-input.ts), and gives its steps' children input parsed already
// (the policy defaults, workflows/delegated-task/defaults.ts): evaluating the schemas cost ~15 ms
// of CPU at every plan start. Whatever the plain check takes must be exactly what zod outputs.
import fc from 'fast-check';
import { join } from 'node:path';
import { loadPlanFile, planFromValue } from '../plans/load';
import { alreadyParsedPlanInput } from '../workflows/plan/check-input';
import { PlanRunInputSchema, type PlanRunInput } from '../workflows/plan/input';
import { parseInput, taskInput } from '../workflows/plan/step-input';
import { DelegatedTaskInputSchema, type DelegatedTask } from '../workflows/delegated-task/input';
import { POLICY_DEFAULTS, WATCH_DEFAULTS } from '../workflows/delegated-task/defaults';

const seed = (): PlanRunInput => loadPlanFile(join(__dirname, '..', 'demo', 'plans', 'release.yaml'), { agentUrls: { 'code-reviewer': 'http://127.0.0.1:9/', deployer: 'http://127.0.0.1:9/' } });

// Every field a plan's step or agent can carry, parsed as the edge parses it.
const rich = (): PlanRunInput =>
  planFromValue(
    {
      name: 'rich.plan-1',
      description: 'all the fields',
      inputs: { build: { default: 7 }, env: { description: 'where' }, flag: null },
      agents: {
        'a.b_c-1': { url: 'https://agents.example/x?y=1', binding: 'http+json', a2aVersion: '0.3', credentialEnv: 'PLANNER_AGENT_TOKEN_X', callTimeout: '30s' },
        other: { url: 'http://127.0.0.1:9/' },
      },
      steps: [
        { id: 'one', agent: 'a.b_c-1', data: { build: '{{inputs.build}}' }, deadlines: { input: { after: '1h', onDeadline: 'remind', remindEvery: 60_000 }, working: { after: '2h', onDeadline: 'fail' } }, maxAuthRounds: 2, watch: { mode: 'poll' }, sendTimeout: '10s', onInput: 'forward', onFailure: 'continue' },
        { id: 'two', agent: 'other', text: 'after {{steps.one.text}} in {{inputs.env}}', dependsOn: ['one'], deadlines: { auth: { after: '1d', onDeadline: 'cancel' }, total: { after: '3d', onDeadline: 'fail' } } },
      ],
    },
    'test',
    { inputs: { env: 'staging', flag: 'on' } },
  );

// What the earlier steps gave, for the later steps' messages.
const OUTPUTS = { review: { text: 'ok', artifacts: [{ artifactId: 'a', name: 'review.json', parts: [{ data: { approved: true } }] }] }, one: { text: 'ok', artifacts: [] } };

/** Runs `fn` with the workflow's schema loader replaced by one that fails: proof that no zod is evaluated. */
function withoutSchemas<T>(fn: (m: { parseInput: typeof parseInput; taskInput: typeof taskInput }) => T): T {
  let out: T | undefined;
  jest.isolateModules(() => {
    const refuse = (): never => {
      throw new Error('the workflow evaluated a zod schema');
    };
    jest.doMock('../workflows/schemas', () => ({ planSchemas: refuse, delegatedTaskSchemas: refuse, a2aSchemas: refuse }));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    out = fn(require('../workflows/plan/step-input') as typeof import('../workflows/plan/step-input'));
  });
  jest.dontMock('../workflows/schemas');
  return out as T;
}

it.each([
  ['the seed plan', seed],
  ['a plan with every field', rich],
])('starts %s and its steps without zod, with what zod would give', (_what, make) => {
  const input = make();
  const started = withoutSchemas(({ parseInput, taskInput }) => {
    const parsed = parseInput(input);
    return { parsed, children: parsed.plan.steps.map((step) => taskInput(parsed, step, 'plan-1', OUTPUTS)) };
  });
  // The same value zod outputs, key for key and in its order.
  const zod = PlanRunInputSchema.parse(input);
  expect(started.parsed).toStrictEqual(zod);
  expect(JSON.stringify(started.parsed)).toBe(JSON.stringify(zod));
  for (const child of started.children) {
    const parsed = DelegatedTaskInputSchema.parse(child);
    expect(child).toStrictEqual(parsed);
    expect(JSON.stringify(child)).toBe(JSON.stringify(parsed));
  }
});

it("gives a step's child the schema's defaults, and the step's own policies where it has them", () => {
  const input = parseInput(rich());
  const [one, two] = input.plan.steps.map((step) => taskInput(input, step, 'p', { one: { text: 'ok', artifacts: [] } }) as DelegatedTask);
  const zodPolicies = (policies: object): unknown => DelegatedTaskInputSchema.parse({ agent: { name: 'a', url: 'http://127.0.0.1:9/' }, message: { text: 'x' }, policies }).policies;
  expect(one!.policies).toStrictEqual(zodPolicies({ input: { after: '1h', onDeadline: 'remind', remindEvery: 60_000 }, working: { after: '2h', onDeadline: 'fail' }, maxAuthRounds: 2, watch: { mode: 'poll' }, sendTimeout: '10s' }));
  expect(one!.policies.watch.mode).toBe('poll');
  expect(two!.policies).toStrictEqual(zodPolicies({ auth: { after: '1d', onDeadline: 'cancel' }, total: { after: '3d', onDeadline: 'fail' } }));
  expect(two!.policies.working).toStrictEqual(POLICY_DEFAULTS.working);
  expect(two!.policies.watch).toStrictEqual(WATCH_DEFAULTS);
  expect(two!.message.text).toBe('after ok in staging');
});

it('leaves to zod what was not parsed at the edge, and zod fills it or names what is wrong', () => {
  const plain = seed() as unknown as { plan: { steps: Record<string, unknown>[]; agents: Record<string, unknown> } };
  // Defaults left out (a start from the Temporal UI): zod fills them.
  const { onInput: _o, onFailure: _f, dependsOn: _d, ...bare } = plain.plan.steps[0]!;
  const unparsed = { ...plain, plan: { ...plain.plan, steps: [bare, ...plain.plan.steps.slice(1)] } } as unknown as PlanRunInput;
  expect(alreadyParsedPlanInput(unparsed)).toBeUndefined();
  expect(parseInput(unparsed).plan.steps[0]).toMatchObject({ onInput: 'ask', onFailure: 'stop', dependsOn: [] });
  // A bad value: the schema's message, naming the field.
  const bad = { ...plain, plan: { ...plain.plan, steps: [{ ...plain.plan.steps[0], sendTimeout: '5 minutes' }, ...plain.plan.steps.slice(1)] } } as unknown as PlanRunInput;
  expect(alreadyParsedPlanInput(bad)).toBeUndefined();
  expect(() => parseInput(bad)).toThrow(/plan\.steps\[0\]\.sendTimeout: a duration/);
  // What the face puts beside the plan is not part of the parsed input.
  const beside = { ...plain, a2a: { taskId: 't' } } as unknown as PlanRunInput;
  expect(alreadyParsedPlanInput(beside)).toStrictEqual(PlanRunInputSchema.parse(beside));
});

// A parsed plan with one value anywhere in it replaced: the plain check takes it only if zod
// outputs exactly it.
const VALUES = [undefined, null, '', 'x', 'X', '5m', '0s', '1.5h', '5 minutes', 0, -1, 1, 1.5, 5, 99, 100, 40_001, true, false, [], ['a'], [''], {}, { after: '1h', onDeadline: 'fail' }, { mode: 'poll' }, 'http://127.0.0.1:9/', 'ftp://h/', 'http://u:p@h/', 'auto', 'poll', 'ask', 'forward', 'stop', 'continue', 'jsonrpc', '0.3', 'PLANNER_X', 'lower', 'review', 'deployer'];

function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return [at, ...v.flatMap((x, i) => paths(x, [...at, i])), [...at, v.length]];
  if (typeof v === 'object' && v !== null) return [at, ...Object.entries(v).flatMap(([k, x]) => paths(x, [...at, k])), [...at, 'extra']];
  return [at];
}
function setAt(v: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [k, ...rest] = path;
  const copy = (Array.isArray(v) ? [...v] : { ...(v as object) }) as Record<string | number, unknown>;
  copy[k!] = setAt(copy[k!], rest, value);
  return copy;
}

it('takes a changed input only when zod outputs exactly it (property)', () => {
  const bases = [seed(), rich()];
  const all = bases.map((b) => ({ b, ps: paths(b) }));
  fc.assert(
    fc.property(fc.nat(all.length - 1), fc.nat(), fc.constantFrom(...VALUES), fc.nat(), fc.constantFrom(...VALUES), (bi, pi, v, qi, w) => {
      const { b, ps } = all[bi]!;
      const once = setAt(b, ps[pi % ps.length]!, v);
      const raw = qi % 3 === 0 ? setAt(once, ps[qi % ps.length]!, w) : once;
      const plain = alreadyParsedPlanInput(raw);
      if (plain === undefined) return;
      const zod = PlanRunInputSchema.safeParse(raw);
      expect(zod.success).toBe(true);
      expect(plain).toStrictEqual(zod.data);
    }),
    { numRuns: 3000, seed: 21 },
  );
});
