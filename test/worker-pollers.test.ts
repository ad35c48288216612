// The poller settings reach the SDK: @temporalio/worker 1.24 reads only `*TaskPollerBehavior` and
// ignores `maxConcurrent*TaskPolls`, so every queue was polled by 10 long polls whatever was set
// (the shared watch's own queue, meant to have one, had ten). Each idle long poll is a server
// request about once a minute; the parked bench counts them (docs/benchmarks.md §3).
import pino from 'pino';
import type { Worker } from '@temporalio/worker';
import { loadConfig } from '../runtime/config';
import { installRuntime } from '../runtime/logger';
import { createPlannerWorkers } from '../worker/workers';
import { plannerEnv, uniqueQueue } from './harness/planner';

const maximum = (behavior: Worker['options']['activityTaskPollerBehavior']): number | undefined =>
  behavior.type === 'simple-maximum' ? behavior.maximum : undefined;

it('polls each queue with as many long polls as configured: the watch queue, the main queue, the hold’s queue and the hubs queue', async () => {
  const queue = uniqueQueue('pollers');
  const env = plannerEnv(queue, { PLANNER_WORKFLOW_POLLERS: '4', PLANNER_ACTIVITY_POLLERS: '5', PLANNER_WATCH_POLLERS: '3' });
  const logger = pino({ level: 'error' });
  installRuntime(logger);
  const planner = await createPlannerWorkers(loadConfig(env), logger, { env });
  const running = planner.run();
  try {
    const on = (q: (name: string) => boolean) => planner.workers.find((w) => q(w.options.taskQueue))!;
    const main = on((q) => q === queue);
    const watch = on((q) => q === `${queue}-watch`);
    const hold = on((q) => q.startsWith(`${queue}-hub-`));
    const hubs = on((q) => q === `${queue}-hubs`);
    expect([maximum(main.options.workflowTaskPollerBehavior), maximum(main.options.activityTaskPollerBehavior)]).toEqual([4, 5]);
    expect(maximum(watch.options.activityTaskPollerBehavior)).toBe(3);
    expect(maximum(hold.options.activityTaskPollerBehavior)).toBe(1);
    expect([maximum(hubs.options.workflowTaskPollerBehavior), maximum(hubs.options.activityTaskPollerBehavior)]).toEqual([2, 1]);
  } finally {
    planner.shutdown();
    await running;
  }
});
