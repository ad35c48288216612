// The fault suite (chaos/, `npm run chaos`) at a small size: the same runner on its own dev server
// (fault c restarts it), with the planner's worker as a real process (fault b SIGKILLs it).
import { chaosOptions, runChaos } from '../chaos/run';
import type { Figures } from '../chaos/figures';

const log: string[] = [];

describe('the fault suite at a small size', () => {
  let figures: Figures[] = [];
  const byFault = (prefix: string): Figures[] => figures.filter((f) => f.fault.startsWith(prefix));

  beforeAll(async () => {
    const o = chaosOptions({ CHAOS_SCALE: '1' }, (line) => log.push(line));
    figures = await runChaos({
      ...o,
      proxyRuns: 2,
      killRuns: 5,
      killConcurrency: 3,
      maxKills: 2,
      killJitterMs: 500,
      restartPairs: 1,
      perRunMs: 120_000,
      bundle: process.env.PLANNER_WORKFLOW_BUNDLE,
    });
  }, 240_000);

  it('ran every fault, and each passed its own checks', () => {
    expect(figures.map((f) => f.fault)).toEqual([
      'a. proxy drop',
      'a. proxy cut',
      'a. proxy 503',
      'a. proxy reset',
      'a. proxy mixed',
      'b. worker SIGKILL',
      'c. dev server restart',
      'd. agent restarted, tasks lost',
    ]);
    expect(figures.filter((f) => f.problems.length).map((f) => `${f.fault}: ${f.problems.join('; ')}\n${log.slice(-20).join('\n')}`)).toEqual([]);
  });

  it('through the proxy, the kills and the server restart: every run completed, each message once, no page missing', () => {
    for (const f of [...byFault('a.'), ...byFault('b.'), ...byFault('c.')]) {
      expect({ fault: f.fault, completed: f.completed, duplicates: f.duplicates, messages: f.messages, missing: f.missingAlerts, pages: f.alerts }).toEqual({
        fault: f.fault,
        completed: f.runs,
        duplicates: 0,
        messages: f.expectedMessages,
        missing: 0,
        pages: f.expectedAlerts,
      });
    }
    // The proxy really misbehaved, and the worker really died.
    expect(byFault('a. proxy drop')[0]!.note).not.toMatch(/^\d+ forwarded, 0 dropped/);
    expect(byFault('b.')[0]!.note).toMatch(/^[1-9]\d* kills/);
  });

  it('ends a step whose agent lost its task with RemoteTaskLost naming agent and task', () => {
    const d = byFault('d.')[0]!;
    expect(d.completed).toBe(2); // both steps ended with RemoteTaskLost
    expect(d.note).toMatch(/deploy: RemoteTaskLost after .*review: RemoteTaskLost after/);
  });
});
