// planner worker: the planner's workers only (what `npm run worker` runs), against the Temporal
// server at TEMPORAL_ADDRESS, until SIGINT/SIGTERM.
import { Command } from '@commander-js/extra-typings';
import { examples } from '../help';
import { configOrUsage } from '../temporal';

export function workerCommand() {
  return new Command('worker')
    .description("run the planner's workers only, against the Temporal server at TEMPORAL_ADDRESS")
    .addHelpText('after', '\nServes PLANNER_TASK_QUEUE and <queue>-watch until SIGINT/SIGTERM, then drains. Logs are JSON unless\nstdout is a terminal (PLANNER_LOG_FORMAT=pretty|json decides).')
    .addHelpText('after', examples('TEMPORAL_ADDRESS=temporal.internal:7233 PLANNER_TASK_QUEUE=planner planner worker'))
    .action(async () => {
      configOrUsage();
      // Loaded on demand: @temporalio/worker is heavy, and the short commands should not pay for it.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- import() would bypass tsx's CommonJS hook
      const { runWorker } = require('../../worker/main') as typeof import('../../worker/main');
      await runWorker();
    });
}
