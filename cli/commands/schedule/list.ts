// planner schedule list: the schedules that start plans, with their timing and recent runs.
import { Command } from '@commander-js/extra-typings';
import { listPlanSchedules } from '../../../client/schedule';
import { examples } from '../../help';
import { out, outputOption, printJson, table } from '../../output';
import { withClient } from '../../temporal';

export function scheduleListCommand() {
  return new Command('list')
    .description('list the schedules that start plans')
    .addOption(outputOption())
    .addHelpText('after', '\n-o json: the schedules as a JSON array, with their recent plans and next times.')
    .addHelpText('after', examples('planner schedule list', "planner schedule list -o json | jq '.[].recentPlans'"))
    .action(async ({ output }) => {
      await withClient(async (client) => {
        const schedules = await listPlanSchedules(client);
        if (output === 'json') return printJson(schedules);
        if (schedules.length === 0) return out('no schedules start plans');
        out(
          table(
            ['SCHEDULE ID', 'PLAN', 'WHEN', 'OVERLAP', 'RUNS', 'NEXT'],
            schedules.map((s) => [s.scheduleId, s.plan ?? '?', s.every ? `every ${s.every}` : `cron ${s.cron ?? '?'}`, s.overlap, String(s.actionsTaken), s.paused ? 'paused' : (s.nextTimes[0] ?? '-')]),
          ),
        );
      });
    });
}
