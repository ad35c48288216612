// planner cluster status: what runs and what answers; exit 1 when the cluster is not up.
import { Command } from '@commander-js/extra-typings';
import { CliFailure } from '../../errors';
import { examples } from '../../help';
import { clusterOptions, deployCluster } from './options';

export function clusterStatusCommand() {
  return new Command('status')
    .description('say what of the local cluster runs and answers (exit 1 when it is not up)')
    .option('--dir <FOLDER>', 'the cluster folder (default .planner/cluster)')
    .addHelpText('after', examples('planner cluster status'))
    .action(async (o) => {
      if (!(await deployCluster().clusterStatus(clusterOptions(o))).up) throw new CliFailure('the cluster is not up (planner cluster up starts it)');
    });
}
