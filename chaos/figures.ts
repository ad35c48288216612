// What each fault reports, and how the seed plan's runs are counted: a run of
// demo/plans/release.yaml sends three messages (the diff, the answer "main", the deploy) and pages
// twice (the question, the approval). Duplicates and missing pages are what a fault must not cause.
import type { AgentHandle } from '../demo/agents';
import type { Alert } from './env';

export interface Figures {
  fault: string;
  runs: number;
  completed: number;
  /** User messages the agents received for these runs, and how many were expected. */
  messages: number;
  expectedMessages: number;
  /** Message ids received more than once. */
  duplicates: number;
  /** Distinct pages (Idempotency-Key) sent for these runs, expected, and waits that got none. */
  alerts: number;
  expectedAlerts: number;
  missingAlerts: number;
  /** Deliveries of a page already delivered (at least once is the contract; receivers dedupe by key). */
  redeliveries: number;
  /** The slowest recovery after a fault, as defined by the fault. */
  recoveryMs: number;
  seconds: number;
  /** What the fault did, e.g. "12 kills" or "proxy: 9 dropped, 31 cut". */
  note: string;
  /** Assertions that failed; empty when the fault passed. */
  problems: string[];
}

export const MESSAGES_PER_RUN = 3;
export const ALERTS_PER_RUN = 2;

/** Counts messages and pages of the seed runs with these plan ids. */
export function countSeedRuns(planIds: string[], agents: AgentHandle[], alerts: Alert[]): Pick<Figures, 'messages' | 'duplicates' | 'alerts' | 'missingAlerts' | 'redeliveries'> {
  const mine = (workflowId: string): boolean => planIds.some((p) => workflowId.startsWith(`${p}.`));
  const ids = agents.flatMap((a) => a.log.userMessages.map((m) => m.messageId)).filter(mine);
  const seen = new Map<string, number>();
  for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
  const pages = alerts.filter((a) => mine(a.workflowId));
  const keys = new Set(pages.map((a) => a.idempotencyKey));
  let missing = 0;
  for (const p of planIds) {
    if (!pages.some((a) => a.workflowId === `${p}.review` && a.kind === 'input')) missing++;
    if (!pages.some((a) => a.workflowId === `${p}.deploy` && a.kind === 'auth')) missing++;
  }
  return {
    messages: ids.length,
    duplicates: [...seen.values()].filter((n) => n > 1).length,
    alerts: keys.size,
    missingAlerts: missing,
    redeliveries: pages.length - keys.size,
  };
}

/** The usual checks of a fault over seed runs: all completed, every message once, every page sent. */
export function seedProblems(f: Figures): string[] {
  const out: string[] = [];
  if (f.completed !== f.runs) out.push(`${f.runs - f.completed} of ${f.runs} runs did not complete`);
  if (f.duplicates !== 0) out.push(`${f.duplicates} message(s) received more than once`);
  if (f.messages !== f.expectedMessages) out.push(`agents received ${f.messages} messages, expected ${f.expectedMessages}`);
  if (f.missingAlerts !== 0) out.push(`${f.missingAlerts} wait(s) paged nobody`);
  if (f.alerts !== f.expectedAlerts) out.push(`${f.alerts} distinct pages, expected ${f.expectedAlerts}`);
  return out;
}

export function table(all: Figures[]): string {
  const head = '| fault | runs completed | messages (dup) | pages sent / expected (missing, redelivered) | slowest recovery | time | what happened |';
  const rows = all.map(
    (f) =>
      `| ${f.fault} | ${f.completed}/${f.runs} | ${f.messages}/${f.expectedMessages} (${f.duplicates}) | ${f.alerts}/${f.expectedAlerts} (${f.missingAlerts}, ${f.redeliveries}) | ${(f.recoveryMs / 1000).toFixed(1)} s | ${f.seconds.toFixed(0)} s | ${f.note}${f.problems.length ? ` — FAILED: ${f.problems.join('; ')}` : ''} |`,
  );
  return [head, '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** A small seeded PRNG (mulberry32), so a failing run can be repeated with CHAOS_SEED. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
