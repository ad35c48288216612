// planner schedule delete: no further plans start; plans it already started run on.
import { Command } from '@commander-js/extra-typings';
import { ScheduleNotFoundError } from '@temporalio/client';
import { deletePlanSchedule } from '../../../client/schedule';
import { CliFailure } from '../../errors';
import { examples } from '../../help';
import { out } from '../../output';
import { withClient } from '../../temporal';

export function scheduleDeleteCommand() {
  return new Command('delete')
    .description('delete a schedule (the plans it started run on)')
    .argument('<SCHEDULE_ID>', 'the schedule to delete')
    .addHelpText('after', examples('planner schedule delete nightly-release'))
    .action(async (scheduleId) => {
      await withClient(async (client) => {
        try {
          await deletePlanSchedule(client, scheduleId);
        } catch (e) {
          if (e instanceof ScheduleNotFoundError) throw new CliFailure(`no schedule with id ${scheduleId}`);
          throw e;
        }
        out(`deleted schedule ${scheduleId}`);
      });
    });
}
