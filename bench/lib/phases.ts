// The seed run cut at the moments every side shows from outside, in the agents' own logs and the
// bot's: when each message reached its agent, when each alert reached the bot. Each phase holds the
// same agent work on every side, so the sides differ in a phase by their own overhead only: where
// the planner's time over the floor goes, with nothing instrumented inside either.
import type { AgentHandle } from '../../demo/agents';
import type { Alert } from './bot';

/** The phases in run order; the plain client has no alerts, so it has only the merged ones. */
export const PHASES = [
  'start → first message at the reviewer',
  "reviewer's work → question alerted",
  'question alerted → answer at the reviewer',
  "reviewer's work, review's end, deploy's start → first message at the deployer",
  "deployer's work → approval alerted",
  "approval alerted → deploy's end seen by the caller",
] as const;
export const MERGED = {
  'first message at the reviewer → answer at the reviewer': [PHASES[1], PHASES[2]],
  "first message at the deployer → deploy's end seen by the caller": [PHASES[4], PHASES[5]],
} as const;

export type Phases = Partial<Record<string, number>>;

/**
 * The phases of the run in [t0, t1]. The alerts are those of its two tasks (`ids`, the bot's own
 * record); a side that alerts nobody (the plain client) gets the merged phases instead.
 */
export function phasesOf(run: { t0: number; t1: number; ids?: [string, string] }, reviewer: AgentHandle, deployer: AgentHandle, alerts: readonly Alert[]): Phases {
  const within = (at: number): boolean => at >= run.t0 && at <= run.t1;
  const first = (xs: { at: number; method: string }[], method: string): number | undefined => xs.find((q) => within(q.at) && q.method === method)?.at;
  const reviewSent = first(reviewer.log.requests, 'SendStreamingMessage') ?? first(reviewer.log.requests, 'SendMessage');
  const answered = reviewer.log.requests.filter((q) => within(q.at) && q.method === 'SendMessage').at(-1)?.at;
  const deploySent = first(deployer.log.requests, 'SendStreamingMessage');
  if (reviewSent === undefined || answered === undefined || deploySent === undefined) throw new Error(`seed run at ${run.t0}: a message is missing from the agents' logs`);
  const out: Phases = { [PHASES[0]]: reviewSent - run.t0, [PHASES[3]]: deploySent - answered };
  const alertOf = (id: string | undefined): number | undefined => (id === undefined ? undefined : alerts.find((a) => a.workflowId === id && within(a.at))?.at);
  const [question, approval] = [alertOf(run.ids?.[0]), alertOf(run.ids?.[1])];
  if (question === undefined || approval === undefined) {
    out['first message at the reviewer → answer at the reviewer'] = answered - reviewSent;
    out["first message at the deployer → deploy's end seen by the caller"] = run.t1 - deploySent;
    return out;
  }
  Object.assign(out, { [PHASES[1]]: question - reviewSent, [PHASES[2]]: answered - question, [PHASES[4]]: approval - deploySent, [PHASES[5]]: run.t1 - approval });
  for (const [merged, [a, b]] of Object.entries(MERGED)) out[merged] = out[a]! + out[b]!;
  return out;
}
