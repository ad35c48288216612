// Waits by kind and the age of the oldest one, as gauges on the worker's Prometheus endpoint
// (PLANNER_METRICS_ADDRESS), sampled from visibility: the inbox's query (client/inbox.ts), read
// every PLANNER_METRICS_SAMPLE_MS. Visibility, not counters kept by workflows, because a wait is a
// state that lasts: it survives worker restarts and continue-as-new, and any worker reports the
// same numbers (alert on the max over workers). A sample reads at most MAX_LISTED waits; past that
// the counts come from CountWorkflowExecutions and the oldest from the waits it listed.
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import type { Logger } from 'pino';
import { PlannerWaitingOn, PlannerWaitingSince } from '../workflows/search-attributes';

export const WAITS = 'planner_waits';
export const OLDEST_WAIT = 'planner_oldest_wait_seconds';
const KINDS = ['human', 'operator', 'agent'] as const;
type Kind = (typeof KINDS)[number];
const MAX_LISTED = 10_000;
/**
 * client/inbox.ts's inboxQuery (worker/ may not import client/): the tasks, not the plans, which
 * carry their most urgent step's wait too; those of this worker's task queue, so that planners
 * sharing a namespace each report their own waits.
 */
const waitingOn = (taskQueue: string): string =>
  `WorkflowType = "DelegatedTaskWorkflow" AND ExecutionStatus = "Running" AND TaskQueue = ${JSON.stringify(taskQueue)} AND PlannerWaitingOn IN ("human","operator","agent")`;

export interface WaitSample {
  count: Record<Kind, number>;
  oldestSeconds: Record<Kind, number>;
}

/** One sample: running delegated tasks waiting on a human, an operator or the agent, and the oldest wait's age (0 when none). */
export async function sampleWaits(client: Client, taskQueue: string, now = Date.now()): Promise<WaitSample> {
  const WAITING = waitingOn(taskQueue);
  const count: Record<Kind, number> = { human: 0, operator: 0, agent: 0 };
  const oldest: Record<Kind, number> = { human: now, operator: now, agent: now };
  let listed = 0;
  for await (const wf of client.workflow.list({ query: WAITING, pageSize: 1000 })) {
    const kind = wf.typedSearchAttributes.get(PlannerWaitingOn);
    if (!KINDS.includes(kind as Kind)) continue;
    count[kind as Kind]++;
    const since = (wf.typedSearchAttributes.get(PlannerWaitingSince) ?? wf.startTime).getTime();
    oldest[kind as Kind] = Math.min(oldest[kind as Kind], since);
    if (++listed >= MAX_LISTED) break;
  }
  if (listed >= MAX_LISTED) {
    for (const kind of KINDS) count[kind] = (await client.workflow.count(`${WAITING} AND ${PlannerWaitingOn.name} = "${kind}"`)).count;
  }
  const age = (kind: Kind): number => Math.max(0, (now - oldest[kind]) / 1000);
  return { count, oldestSeconds: { human: age('human'), operator: age('operator'), agent: age('agent') } };
}

/** Samples until stopped; a failed sample is logged and the gauges keep their last values. */
export function startWaitGauges(client: Client, taskQueue: string, meter: MetricMeter, logger: Logger, everyMs: number): { stop(): Promise<void> } {
  const waits = meter.createGauge(WAITS, 'int', undefined, 'running delegated tasks waiting, by whom they wait on (human: a question; operator: an approval; agent: its reply or its work)');
  const age = meter.createGauge(OLDEST_WAIT, 'float', 's', 'how long the oldest of those waits has waited, in seconds (0: none waits)');
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const tick = (): void => {
    current = sampleWaits(client, taskQueue)
      .then((s) => {
        for (const kind of KINDS) {
          waits.set(s.count[kind], { waiting_on: kind });
          age.set(s.oldestSeconds[kind], { waiting_on: kind });
        }
      })
      .catch((err: unknown) => logger.warn({ err }, 'sampling the waits for the metrics failed; the gauges keep their last values'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, everyMs);
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
