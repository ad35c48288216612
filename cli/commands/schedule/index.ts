// planner schedule <verb>: Temporal Schedules that start plans (one file per verb beside this one).
import { Command } from '@commander-js/extra-typings';
import { examples } from '../../help';
import { scheduleCreateCommand } from './create';
import { scheduleDeleteCommand } from './delete';
import { scheduleListCommand } from './list';
import { scheduleTriggerCommand } from './trigger';

export function scheduleCommand() {
  return new Command('schedule')
    .description('start plans on a schedule: create, list, delete, trigger')
    .addCommand(scheduleCreateCommand())
    .addCommand(scheduleListCommand())
    .addCommand(scheduleDeleteCommand())
    .addCommand(scheduleTriggerCommand())
    .addHelpText('after', examples('planner schedule create demo/plans/release.yaml --every 24h --id nightly', 'planner schedule list', 'planner schedule delete nightly'));
}
