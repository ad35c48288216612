// planner plan <verb>: plan files themselves (one file per verb beside this one).
import { Command } from '@commander-js/extra-typings';
import { examples } from '../../help';
import { planCheckCommand } from './check';

export function planCommand() {
  return new Command('plan')
    .description('work with plan files: planner plan check FILE')
    .addCommand(planCheckCommand())
    .addHelpText('after', examples('planner plan check demo/plans/release.yaml'));
}
