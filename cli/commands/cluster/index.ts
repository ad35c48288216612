// planner cluster <verb>: the local production-shaped stack of docs/deploy.md (deploy/cluster/).
import { Command } from '@commander-js/extra-typings';
import { examples } from '../../help';
import { clusterDownCommand } from './down';
import { clusterStatusCommand } from './status';
import { clusterUpCommand } from './up';

export function clusterCommand() {
  return new Command('cluster')
    .description('a local production-shaped stack: Temporal on PostgreSQL, several workers and servers (up, down, status)')
    .addCommand(clusterUpCommand())
    .addCommand(clusterDownCommand())
    .addCommand(clusterStatusCommand())
    .addHelpText('after', examples('planner cluster up', 'planner cluster status', 'planner cluster down'));
}
