// The workflow bench/dispatch.ts times: a few no-op activities in a row, so its duration is
// almost only Temporal's dispatch of workflow tasks and activities.
import { proxyActivities, sleep } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '10s' });

export async function DispatchWorkflow(activities: number): Promise<void> {
  for (let i = 0; i < activities; i++) await noop();
}

/** Short timers in a row: each fires through the history timer queue, then a workflow task. */
export async function TimerWorkflow(timers: number): Promise<void> {
  for (let i = 0; i < timers; i++) await sleep(10);
}
