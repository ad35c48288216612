// planner schedule create: a Temporal Schedule that starts a plan with given inputs.
import { Command } from '@commander-js/extra-typings';
import { ScheduleAlreadyRunning } from '@temporalio/client';
import { createPlanSchedule, InvalidScheduleError, OVERLAP_POLICIES, type OverlapPolicy } from '../../../client/schedule';
import { checkPlanSource, InvalidPlanError } from '../../../client/plan';
import { CliFailure, UsageError } from '../../errors';
import { duration, keyValue } from '../../flags';
import { examples } from '../../help';
import { outputOption, print } from '../../output';
import { withClient } from '../../temporal';

const overlap = (value: string): OverlapPolicy => {
  const v = value.replace(/-/g, '_');
  if (!(OVERLAP_POLICIES as readonly string[]).includes(v)) throw new UsageError(`bad --overlap ${JSON.stringify(value)}: skip, buffer-one or allow-all`);
  return v as OverlapPolicy;
};

export function scheduleCreateCommand() {
  return new Command('create')
    .description('create a schedule that starts a plan file (checked now) every interval or on a cron expression')
    .argument('<PLAN_FILE>', 'the plan file; it is checked now and its checked form is what every run starts with')
    .option('--cron <EXPR>', 'a cron expression in UTC, e.g. "0 3 * * 1-5"')
    .option('--every <DURATION>', 'an interval, e.g. 15m, 24h', duration('--every'))
    .option('--input <NAME=VALUE>', 'a value for one of the plan\'s inputs (repeatable)', keyValue('--input'))
    .option('--agent-url <NAME=URL>', "replace an agent's URL from the plan (repeatable)", keyValue('--agent-url'))
    .option('--id <SCHEDULE_ID>', 'the schedule id (default: the plan name)')
    .option('--overlap <POLICY>', 'when a run still goes at the next time: skip (default), buffer-one, allow-all', overlap, 'skip' as OverlapPolicy)
    .addOption(outputOption())
    .addHelpText('after', '\nPrints the schedule (-o json: as JSON). A scheduled run is a normal plan: it shows in the inbox and the Temporal UI.')
    .addHelpText(
      'after',
      examples('planner schedule create demo/plans/release.yaml --every 24h --id nightly-release', 'planner schedule create release.yaml --cron "0 3 * * 1-5" --input environment=staging --overlap buffer-one'),
    )
    .action(async (file, { cron, every, input, agentUrl, id, overlap: policy, output }) => {
      if ((cron === undefined) === (every === undefined)) throw new UsageError('give exactly one of --cron or --every');
      await withClient(async (client, config) => {
        const scheduleId = id ?? checkPlanSource({ planFile: file }, { inputs: input, agentUrls: agentUrl }).plan.name;
        try {
          const created = await createPlanSchedule(
            client,
            { scheduleId, timing: { ...(cron !== undefined ? { cron } : { every }), overlap: policy }, source: { planFile: file }, inputs: input, agentUrls: agentUrl },
            { taskQueue: config.PLANNER_TASK_QUEUE },
          );
          print(output, created, (s) =>
            [
              `created schedule ${s.scheduleId}: plan ${s.plan ?? '?'} ${s.every ? `every ${s.every}` : `on cron ${s.cron ?? '?'}`} (overlap ${s.overlap})`,
              `next runs: ${s.nextTimes.slice(0, 3).join(', ') || 'none'}`,
              `next: planner schedule list, or planner schedule trigger ${s.scheduleId} to start one now`,
            ].join('\n'),
          );
        } catch (e) {
          if (e instanceof InvalidPlanError || e instanceof InvalidScheduleError) throw new UsageError(e.message);
          if (e instanceof ScheduleAlreadyRunning) throw new CliFailure(`a schedule with id ${scheduleId} already exists (planner schedule delete ${scheduleId}, or choose another --id)`);
          throw e;
        }
      });
    });
}
