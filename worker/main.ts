// The worker process: connects to TEMPORAL_ADDRESS and serves the planner's task queues until
// SIGINT/SIGTERM, then drains and exits: it stops polling, lets running activities on the main
// queue finish within PLANNER_SHUTDOWN_GRACE, and cancels the rest (their retries run elsewhere).
// A second signal exits at once. Also `planner worker`.
import { createLogger, installRuntime, logFormatFor } from '../runtime/logger';
import { loadConfig } from '../runtime/config';
import { temporalTarget } from '../runtime/temporal-connection';
import { runningAllocator } from './allocator';
import { createPlannerWorkers } from './workers';

export async function runWorker(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.PLANNER_LOG_LEVEL, logFormatFor(config.PLANNER_LOG_FORMAT));
  installRuntime(logger, { metricsAddress: config.PLANNER_METRICS_ADDRESS });
  const planner = await createPlannerWorkers(config, logger);
  let stopping = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (stopping) {
        logger.warn({ signal: sig }, 'second signal: exiting without waiting for running activities');
        process.exit(130);
      }
      stopping = true;
      logger.info({ signal: sig, grace: config.PLANNER_SHUTDOWN_GRACE }, 'shutting down the worker');
      planner.shutdown();
    });
  }
  const target = temporalTarget(config);
  logger.info(
    { temporal: target.describe, taskQueue: config.PLANNER_TASK_QUEUE, allocator: runningAllocator(), ...(config.PLANNER_METRICS_ADDRESS ? { metrics: `http://${config.PLANNER_METRICS_ADDRESS}/metrics` } : {}) },
    'worker running',
  );
  await planner.run();
}

if (require.main === module) {
  runWorker().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
