// Replays every committed history fixture (test/histories/<version>/<scenario>.json) with today's
// workflow bundle: a change to workflows/ that running workflows could not survive fails here,
// naming the fixture. test/histories/v1/README.md says how the fixtures were recorded.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { History } from '@temporalio/common/lib/proto-utils';
import pino from 'pino';
import { installRuntime } from '../runtime/logger';
import { testEnv } from './harness/planner';
import { historyFromJson } from './histories/history-json';

const ROOT = join(__dirname, 'histories');

function fixturesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? fixturesUnder(join(dir, e.name)) : e.name.endsWith('.json') ? [relative(ROOT, join(dir, e.name))] : [],
  );
}

const fixtures = fixturesUnder(ROOT).sort();
const load = (fixture: string): History => historyFromJson(JSON.parse(readFileSync(join(ROOT, fixture), 'utf8')));

/** The id the workflow ran under: a PlanWorkflow names its children after it, so its replay needs the same one. */
const recordedId = (h: History): string | undefined => h.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? undefined;

/** fixture -> the replay error's text, or undefined when it replayed cleanly. */
async function replay(histories: Array<{ fixture: string; history: History }>): Promise<Map<string, string | undefined>> {
  const results = new Map<string, string | undefined>();
  const fixtureOf = new Map<string, string>();
  const source = histories.map(({ fixture, history }) => {
    const id = fixture.startsWith('plan-') ? (recordedId(history) ?? fixture) : fixture;
    fixtureOf.set(id, fixture);
    return { workflowId: id, history };
  });
  for await (const r of Worker.runReplayHistories({ workflowBundle: { codePath: testEnv().bundle } }, source)) {
    results.set(fixtureOf.get(r.workflowId) ?? r.workflowId, r.error ? `${r.error.name}: ${r.error.message}` : undefined);
  }
  return results;
}

let results: Map<string, string | undefined>;
beforeAll(async () => {
  installRuntime(pino({ level: 'warn' })); // replay workers log every state change at info
  results = await replay(fixtures.map((fixture) => ({ fixture, history: load(fixture) })));
}, 120_000);

it('has the v1 fixtures recorded from the code before the continue-as-new rewrite', () => {
  const v1 = fixtures.filter((f) => f.startsWith('v1/')).map((f) => f.slice(3, -5));
  expect(v1).toEqual(expect.arrayContaining(['instant', 'question-answered', 'asks-twice', 'approval-stream', 'two-approvals', 'approval-polling', 'cancelled-auth']));
});

it.each(fixtures)('%s replays with the current workflow code', (fixture) => {
  expect(results.has(fixture)).toBe(true);
  // The fixture's name is in the message, so a failure says which recorded workflow would break.
  expect(`${fixture}: ${results.get(fixture) ?? 'replayed'}`).toBe(`${fixture}: replayed`);
});

it('notices drift: a history whose first activity was some other activity fails to replay', async () => {
  const history = load('v1/instant.json');
  const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes)!;
  scheduled.activityTaskScheduledEventAttributes!.activityType = { name: 'someOtherActivity' };
  const err = await Worker.runReplayHistory({ workflowBundle: { codePath: testEnv().bundle } }, history, 'tampered').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DeterminismViolationError);
});
