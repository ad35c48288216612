// planner cluster status: what runs and what answers; exit 1 when the cluster is not up.
import { Command } from '@commander-js/extra-typings';
import { CliFailure } from '../../errors';
import { examples } from '../../help';
import { outputOption, printJson } from '../../output';
import { clusterOptions, deployCluster } from './options';

export function clusterStatusCommand() {
  return new Command('status')
    .description('say what of the local cluster runs and answers (exit 1 when it is not up)')
    .option('--dir <FOLDER>', 'the cluster folder (default .planner/cluster)')
    .addOption(outputOption())
    .addHelpText('after', examples('planner cluster status', 'planner cluster status -o json'))
    .action(async (o) => {
      const json = o.output === 'json';
      // With -o json the status is the one document on stdout: the per-part lines are not printed.
      const status = await deployCluster().clusterStatus({ ...clusterOptions(o), ...(json ? { log: () => undefined } : {}) });
      if (json) printJson(status);
      if (!status.up) throw new CliFailure('the cluster is not up (planner cluster up starts it)');
    });
}
