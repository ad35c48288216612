// Plan files: what loads, and every kind of plan that cannot run, refused with the field and the line.
// Pure units: nothing here starts a workflow (the CLI suite checks that nothing starts end to end).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from './support/scratch';
import fc from 'fast-check';
import { loadPlanFile, planFromText, planFromValue, PlanError } from '../plans/load';
import { render } from '../workflows/plan/template';
import { RELEASE_PLAN } from './support/plans';

const dir = scratchDir('plans');
let n = 0;
function file(text: string, ext = 'yaml'): string {
  const path = join(dir, `plan-${++n}.${ext}`);
  writeFileSync(path, text);
  return path;
}

/** The error a plan file gives, as its message. */
function refusal(text: string, opts: Parameters<typeof loadPlanFile>[1] = {}, ext = 'yaml'): string {
  try {
    loadPlanFile(file(text, ext), opts);
  } catch (e) {
    expect(e).toBeInstanceOf(PlanError);
    return (e as Error).message;
  }
  throw new Error('the plan was accepted');
}

const AGENTS = `agents:
  rev:
    url: http://127.0.0.1:9/
`;

describe('a plan that can run', () => {
  it('the seed plan loads with its defaults, and --input values replace them', () => {
    const run = loadPlanFile(RELEASE_PLAN, { inputs: { build: '2026.10.07-2' } });
    expect(run.plan.name).toBe('release');
    expect(run.plan.steps.map((s) => [s.id, s.agent, s.dependsOn])).toEqual([
      ['review', 'code-reviewer', []],
      ['deploy', 'deployer', ['review']],
    ]);
    expect(run.inputs).toMatchObject({ repo: 'payments-api', build: '2026.10.07-2', environment: 'staging' });
    expect(run.plan.steps[0]!.onFailure).toBe('stop');
  });

  it('--agent-url replaces an agent\'s URL; a card file is read into the plan', () => {
    const card = join(dir, 'card.json');
    writeFileSync(
      card,
      JSON.stringify({
        name: 'rev',
        description: 'a reviewer',
        version: '1.0.0',
        supportedInterfaces: [{ url: 'http://127.0.0.1:9/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      }),
    );
    const run = loadPlanFile(file(`name: p\nagents:\n  rev: { card: card.json }\n  dep: { url: "http://127.0.0.1:9" }\nsteps:\n  - { id: a, agent: rev, text: hi }\n  - { id: b, agent: dep, text: hi }\n`), {
      agentUrls: { dep: 'http://127.0.0.1:10' },
    });
    expect(typeof run.plan.agents.rev!.card).toBe('object');
    expect(run.plan.agents.dep!.url).toBe('http://127.0.0.1:10');
  });

  it('renders inputs, step texts and artifacts (data parts as JSON)', () => {
    const text = render('{{ inputs.repo }} / {{steps.r.text}} / {{steps.r.artifacts.review.json}}', {
      inputs: { repo: 'payments-api' },
      steps: { r: { text: 'done', artifacts: [{ artifactId: 'a1', name: 'review.json', parts: [{ data: { verdict: 'approve' } }] }] } },
    });
    expect(text).toBe('payments-api / done / {"verdict":"approve"}');
  });
});

describe('a plan that cannot run is refused, naming the problem and the line', () => {
  it('a dependency cycle', () => {
    expect(refusal(`name: p\n${AGENTS}steps:\n  - { id: a, agent: rev, text: x, dependsOn: [b] }\n  - { id: b, agent: rev, text: x, dependsOn: [a] }\n`)).toMatch(
      /line 6: steps\[0\]\.dependsOn: dependency cycle: a → b → a/,
    );
  });

  it('an unknown agent, and an unknown step in dependsOn', () => {
    const m = refusal(`name: p\n${AGENTS}steps:\n  - id: a\n    agent: reviewer\n    text: x\n    dependsOn: [nope]\n`);
    expect(m).toMatch(/2 problems/);
    expect(m).toMatch(/line 7: steps\[0\]\.agent: unknown agent "reviewer" \(agents: rev\)/);
    expect(m).toMatch(/line 9: steps\[0\]\.dependsOn\[0\]: unknown step "nope" \(steps: a\)/);
  });

  it('substitutions that name nothing, or a step the step does not depend on', () => {
    const m = refusal(
      `name: p\ninputs:\n  repo: { default: x }\n${AGENTS}steps:\n  - { id: a, agent: rev, text: "{{inputs.rpo}}" }\n  - { id: b, agent: rev, text: "{{steps.a.text}} {{steps.zz.text}} {{foo}}" }\n`,
    );
    expect(m).toMatch(/line 8: steps\[0\]\.text: \{\{inputs\.rpo\}\} names no input \(inputs: repo\)/);
    expect(m).toMatch(/line 9: steps\[1\]\.text: \{\{steps\.a\.text\}\} uses step "a", which "b" does not depend on: add it to dependsOn/);
    expect(m).toMatch(/\{\{steps\.zz\.text\}\} names no step/);
    expect(m).toMatch(/"\{\{foo\}\}" is not a substitution/);
  });

  it('a missing input (pointing at its declaration) and an unknown one given', () => {
    const m = refusal(`name: p\ninputs:\n  build:\n    description: the build\n${AGENTS}steps:\n  - { id: a, agent: rev, text: "{{inputs.build}}" }\n`, { inputs: { buidl: '1' } });
    expect(m).toMatch(/line 3: inputs\.build: missing input "build" \(the build\): give it a value/);
    expect(m).toMatch(/inputs\.buidl: unknown input "buidl" \(the plan takes: build\)/);
  });

  it('broken YAML and broken JSON name the line (JSON is read as YAML 1.2)', () => {
    expect(refusal('name: p\nsteps: [\n  - a\nagents: x\n')).toMatch(/plan-\d+\.yaml: 2 problems: line 3: \(document\): not valid YAML: Block collections are not allowed within flow collections/);
    expect(refusal('{\n  "name": "p",\n  "steps": ]\n}', {}, 'json')).toMatch(/line 3: \(document\): not valid YAML: /);
  });

  it('unknown fields, wrong types and bad values name the field', () => {
    expect(refusal(`name: p\n${AGENTS}steps:\n  - id: a\n    agent: rev\n    text: x\n    colour: red\n`)).toMatch(/line 9: steps\[0\]\.colour: unknown field "colour"/);
    expect(refusal(`name: p\n${AGENTS}steps:\n  - id: a\n    agent: rev\n    text: x\n    onFailure: retry\n`)).toMatch(/line 9: steps\[0\]\.onFailure: invalid enum value 'retry'/);
    expect(refusal(`name: p\n${AGENTS}steps: {}\n`)).toMatch(/line 5: steps: expected array, got object/);
    expect(refusal(`name: p\nagents:\n  rev: { url: "http://u:pw@127.0.0.1:9" }\nsteps:\n  - { id: a, agent: rev, text: x }\n`)).toMatch(/line 3: agents\.rev\.url: no user:password@ in the URL/);
    expect(refusal(`name: p\n${AGENTS}steps:\n  - { id: a, agent: rev, text: x }\n  - { id: a, agent: rev, text: y }\n`)).toMatch(/line 7: steps\[1\]\.id: step id "a" is used twice/);
    expect(refusal(`name: p\n${AGENTS}steps:\n  - { id: a, agent: rev }\n`)).toMatch(/steps\[0\]: a step needs text or data to send/);
  });

  it('credentialEnv names only PLANNER_AGENT_TOKEN_* variables, and its agent cannot move to another origin', () => {
    const plan = (env: string): string => `name: p\nagents:\n  rev: { url: "http://127.0.0.1:9/", credentialEnv: ${env} }\nsteps:\n  - { id: a, agent: rev, text: x }\n`;
    expect(refusal(plan('PLANNER_WEBHOOK_SECRET'))).toMatch(/line 3: agents\.rev\.credentialEnv: PLANNER_WEBHOOK_SECRET is not a credential variable: a plan may name only worker variables under PLANNER_AGENT_TOKEN_\*/);
    expect(refusal(plan('A2A_AGENT_CREDENTIALS'))).toMatch(/agents\.rev\.credentialEnv: A2A_AGENT_CREDENTIALS is not a credential variable/);
    expect(loadPlanFile(file(plan('PLANNER_AGENT_TOKEN_REV'))).plan.agents.rev!.credentialEnv).toBe('PLANNER_AGENT_TOKEN_REV');
    // The same origin is the same agent; another origin would carry the token elsewhere.
    expect(loadPlanFile(file(plan('PLANNER_AGENT_TOKEN_REV')), { agentUrls: { rev: 'http://127.0.0.1:9/v2' } }).plan.agents.rev!.url).toBe('http://127.0.0.1:9/v2');
    expect(refusal(plan('PLANNER_AGENT_TOKEN_REV'), { agentUrls: { rev: 'http://127.0.0.1:10' } })).toMatch(
      /agents\.rev\.url: agentUrls\.rev: http:\/\/127\.0\.0\.1:10 is not the origin the plan names for agent "rev", and its credentialEnv token goes only there/,
    );
  });

  it("a caller's document: registered agents by name, its own only with PLANNER_CALLER_AGENTS=any (marked callerNamed), no credentialEnv", () => {
    const trust = (callerAgents: 'registered' | 'any') => ({ callerAgents, registered: { rev: 'http://127.0.0.1:9/' }, document: 'caller' as const, agentUrls: 'caller' as const });
    const doc = (agents: Record<string, unknown>) => ({ name: 'p', agents, steps: Object.keys(agents).map((a, i) => ({ id: `s${i}`, agent: a, text: 'x' })) });
    const refused = (value: unknown, opts: Parameters<typeof planFromValue>[2]): string => {
      try {
        planFromValue(value, 'api', opts);
      } catch (e) {
        expect(e).toBeInstanceOf(PlanError);
        return (e as Error).message;
      }
      throw new Error('the plan was accepted');
    };
    expect(planFromValue(doc({ rev: {} }), 'api', { trust: trust('registered') }).plan.agents.rev).toEqual({ url: 'http://127.0.0.1:9/' });
    expect(refused(doc({ other: {} }), { trust: trust('registered') })).toMatch(/agents\.other: agent "other" is not one the operator registered \(PLANNER_AGENTS; registered: rev\)/);
    expect(refused(doc({ mine: { url: 'http://127.0.0.1:10' } }), { trust: trust('registered') })).toMatch(/agents\.mine\.url: .*PLANNER_CALLER_AGENTS=registered; registered: rev/);
    expect(refused(doc({ rev: { url: 'http://127.0.0.1:10' } }), { trust: trust('any') })).toMatch(/agents\.rev\.url: "rev" is an agent the operator registered \(PLANNER_AGENTS\)/);
    expect(refused(doc({ rev: { credentialEnv: 'PLANNER_AGENT_TOKEN_REV' } }), { trust: trust('any') })).toMatch(/agents\.rev\.credentialEnv: only the operator's plan files may name a credential variable/);
    expect(planFromValue(doc({ mine: { url: 'http://127.0.0.1:10' } }), 'api', { trust: trust('any') }).plan.agents.mine).toEqual({ url: 'http://127.0.0.1:10', callerNamed: true });
    // A caller's agentUrls: refused on `registered`, and on `any` an override to another origin is a caller's agent.
    const fileTrust = (callerAgents: 'registered' | 'any') => ({ ...trust(callerAgents), document: 'operator' as const });
    expect(refusal(`name: p\n${AGENTS}steps:\n  - { id: a, agent: rev, text: x }\n`, { agentUrls: { rev: 'http://127.0.0.1:10' }, trust: fileTrust('registered') })).toMatch(
      /agentUrls\.rev: a caller may not choose an agent's URL on this planner \(PLANNER_CALLER_AGENTS=registered\)/,
    );
    const moved = loadPlanFile(file(`name: p\n${AGENTS}steps:\n  - { id: a, agent: rev, text: x }\n`), { agentUrls: { rev: 'http://127.0.0.1:10' }, trust: fileTrust('any') });
    expect(moved.plan.agents.rev).toEqual({ url: 'http://127.0.0.1:10', callerNamed: true });
  });

  it('a file that is not there, and a card file in a document that came from no file', () => {
    expect(() => loadPlanFile(join(dir, 'nope.yaml'))).toThrow(/nope\.yaml: \(document\): cannot read the plan: no such file/);
    expect(() => planFromValue({ name: 'p', agents: { rev: { card: 'card.json' } }, steps: [{ id: 'a', agent: 'rev', text: 'x' }] }, 'api')).toThrow(
      /^api: agents\.rev\.card: a card file can only be named in a plan file/,
    );
  });

  it('whatever the document, the loader answers with a plan or a PlanError, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string()), (doc) => {
        try {
          if (typeof doc === 'string') planFromText(doc, 'fuzz.yaml');
          else planFromValue(doc, 'fuzz');
        } catch (e) {
          if (!(e instanceof PlanError)) throw e;
          expect(e.message).toMatch(/^fuzz(\.yaml)?: /);
        }
      }),
      { numRuns: 300 },
    );
  });
});
