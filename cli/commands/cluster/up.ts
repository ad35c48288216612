// planner cluster up: a local production-shaped stack (PostgreSQL, Temporal's four services, the UI,
// N workers, M planner serve replicas), built and started from the registries alone.
import { Command } from '@commander-js/extra-typings';
import { examples } from '../../help';
import { clusterOptions, count, deployCluster } from './options';

export function clusterUpCommand() {
  return new Command('up')
    .description("start the local cluster: PostgreSQL, Temporal's services, the UI, workers and planner serve replicas")
    .option('--workers <N>', 'planner workers (default 2, or PLANNER_CLUSTER_WORKERS)', count('--workers'))
    .option('--servers <M>', 'planner serve replicas (default 0, or PLANNER_CLUSTER_SERVERS)', count('--servers'))
    .option('--dir <FOLDER>', 'where data, logs and state.json live (default .planner/cluster)')
    .option('--no-ui', 'do not start the Temporal UI server')
    .addHelpText('after', '\nBuilds the official Temporal server, temporal-sql-tool and the UI server into the user cache the first\ntime (minutes; progress lines say so). Ports and the password come from the environment: docs/deploy.md.')
    .addHelpText('after', examples('planner cluster up', 'planner cluster up --workers 3 --servers 1'))
    .action(async (o) => {
      await deployCluster().clusterUp(clusterOptions(o));
    });
}
