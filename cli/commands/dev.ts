// planner dev (alias: start; what `npm start` runs): the whole planner on the embedded default.
import { Command } from '@commander-js/extra-typings';
import { examples } from '../help';
import { configOrUsage } from '../temporal';

export function devCommand() {
  return new Command('dev')
    .alias('start')
    .description('run the whole planner here: a Temporal dev server (unless one answers), the workers and the demo agents')
    .option('--no-agents', 'do not start the demo agents')
    .addHelpText(
      'after',
      `
Starts a Temporal dev server unless one answers at TEMPORAL_ADDRESS (data in .planner/ under the
current directory, UI one thousand ports above the gRPC port: http://127.0.0.1:8233 by default),
the planner's workers, the push receiver when PLANNER_WEBHOOK_BASE_URL is set, and the demo agents
code-reviewer (127.0.0.1:41241, PLANNER_DEMO_REVIEWER_PORT) and deployer (127.0.0.1:41243,
PLANNER_DEMO_DEPLOYER_PORT). A banner says where everything is once it is up. Ctrl-C stops all it
started, workers first; a second Ctrl-C forces. Logs go to stdout, pretty on a terminal, else JSON
(PLANNER_LOG_FORMAT=pretty|json); progress and the banner go to stderr.`,
    )
    .addHelpText(
      'after',
      examples(
        'npm start                                   # the same, after installing what is missing',
        'planner dev',
        'planner dev --no-agents',
        'PLANNER_DEMO_REVIEWER_PORT=0 PLANNER_DEMO_DEPLOYER_PORT=0 planner dev   # any free ports',
      ),
    )
    .action(async ({ agents }) => {
      configOrUsage();
      // Loaded on demand: the workers, webpack and the agents are heavy, and the short commands should not pay for them.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- import() would bypass tsx's CommonJS hook
      const { runEmbeddedPlanner } = require('../embedded-planner') as typeof import('../embedded-planner');
      await runEmbeddedPlanner({ agents });
    });
}
