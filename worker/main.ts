// The worker process: connects to TEMPORAL_ADDRESS and serves the planner's task queues until
// SIGINT/SIGTERM, then drains and exits. Also `planner worker`.
import { createLogger, installRuntime, logFormatFor } from './logger';
import { loadConfig } from './config';
import { createPlannerWorkers } from './workers';

export async function runWorker(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.PLANNER_LOG_LEVEL, logFormatFor(config.PLANNER_LOG_FORMAT));
  installRuntime(logger);
  const planner = await createPlannerWorkers(config, logger);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      logger.info({ signal: sig }, 'shutting down the worker');
      planner.shutdown();
    });
  }
  logger.info({ address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.PLANNER_TASK_QUEUE }, 'worker running');
  await planner.run();
}

if (require.main === module) {
  runWorker().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
