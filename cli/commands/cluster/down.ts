// planner cluster down: stops what `up` started (by the pids it recorded), then PostgreSQL; nothing else.
import { Command } from '@commander-js/extra-typings';
import { examples } from '../../help';
import { out } from '../../output';
import { clusterOptions, deployCluster } from './options';

export function clusterDownCommand() {
  return new Command('down')
    .description('stop everything `planner cluster up` started, and nothing else')
    .option('--dir <FOLDER>', 'the cluster folder (default .planner/cluster)')
    .addHelpText('after', examples('planner cluster down'))
    .action(async (o) => {
      const { stopped } = await deployCluster().clusterDown(clusterOptions(o)); // it names what it stops
      if (stopped.length === 0) out('nothing of the cluster was running');
    });
}
