// planner schedule trigger: start the schedule's plan now (its overlap policy applies).
import { Command } from '@commander-js/extra-typings';
import { ScheduleNotFoundError } from '@temporalio/client';
import { triggerPlanSchedule } from '../../../client/schedule';
import { CliFailure } from '../../errors';
import { examples } from '../../help';
import { out } from '../../output';
import { withClient } from '../../temporal';

export function scheduleTriggerCommand() {
  return new Command('trigger')
    .description("start the schedule's plan now, as if its time had come")
    .argument('<SCHEDULE_ID>', 'the schedule')
    .addHelpText('after', examples('planner schedule trigger nightly-release'))
    .action(async (scheduleId) => {
      await withClient(async (client) => {
        try {
          await triggerPlanSchedule(client, scheduleId);
        } catch (e) {
          if (e instanceof ScheduleNotFoundError) throw new CliFailure(`no schedule with id ${scheduleId}`);
          throw e;
        }
        out(`triggered schedule ${scheduleId}; the plan it starts shows in planner schedule list -o json (recentPlans)`);
      });
    });
}
