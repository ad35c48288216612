// WatchHubWorkflow: stands for one worker's shared watch (activities/shared-watch.ts), which holds
// the streams of every approval round parked on that worker. Its hold activity runs on the
// worker's own queue and heartbeats once for all of them; the register of parked waits lives
// here. When the hold fails (the worker was killed, or shut down), one hand-over activity on a live
// worker adopts every parked wait into that worker's shared watch (a new stream each, no workflow
// task), and tells any it cannot adopt to lease a watch again: one heartbeat per worker, not per
// wait, and a crash hands all of a worker's waits over at once.
import { allHandlersFinished, condition, continueAsNew, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { PlannerActivities } from '../../activities';
import { hubChangesSignal, parkedWaitsQuery, type ParkedWait, type WaitRef, type WatchHubInput } from './messages';

/** A hold returns after this long (new activity code takes effect), or once the worker holds no stream. */
const HOLD_MS = 60 * 60_000;
/** Registrations are signals: the register is carried to a fresh run well before history is large. */
const HISTORY_BOUND = 5_000;

export async function WatchHubWorkflow(input: WatchHubInput): Promise<void> {
  const parked = new Map<string, ParkedWait>((input.parked ?? []).map((w) => [w.workflowId, w]));
  // An ended wait is forgotten only if it is still the one parked (a newer lease may have replaced it).
  const forget = (w: WaitRef): void => void (parked.get(w.workflowId)?.watchId === w.watchId && parked.delete(w.workflowId));
  setHandler(hubChangesSignal, ({ parked: added, ended }) => {
    ended.forEach(forget);
    for (const w of added) parked.set(w.workflowId, w);
  });
  setHandler(parkedWaitsQuery, () => parked.size);

  const { holdWatchHub } = proxyActivities<PlannerActivities>({
    taskQueue: input.hubQueue,
    heartbeatTimeout: input.heartbeatTimeout,
    startToCloseTimeout: HOLD_MS + 60_000,
    // One attempt: a hold that fails means the worker is gone, and its waits must move now.
    retry: { maximumAttempts: 1 },
  });
  const { handOverWatches } = proxyActivities<PlannerActivities>({
    startToCloseTimeout: '10m',
    heartbeatTimeout: '1m',
    retry: { initialInterval: '1s', maximumInterval: '30s' },
  });

  const handOver = async (): Promise<void> => {
    const handed = waits(parked);
    await handOverWatches({ hubId: input.hubId, waits: handed });
    handed.forEach(forget);
  };
  // Started with the first wait's signal, which may be delivered after this line first runs.
  if (parked.size === 0) await condition(() => parked.size > 0, '1 minute');
  // Held only while the worker holds parked streams: a worker with none pays no heartbeats.
  while (parked.size > 0) {
    try {
      if ((await holdWatchHub({ hubId: input.hubId, holdMs: HOLD_MS })) === 'empty') {
        // The worker holds no stream: the register names only waits whose end it was not told of.
        await handOver();
      }
    } catch (err) {
      log.info('the worker of this watch hub is gone; handing its waits over', { hubId: input.hubId, waits: parked.size, error: String(err) });
      // Parked meanwhile (still in the register after this): the worker lives after all, hold again.
      await handOver();
    }
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > HISTORY_BOUND) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof WatchHubWorkflow>({ ...input, parked: waits(parked) });
    }
  }
  await condition(allHandlersFinished);
}

function waits(parked: Map<string, ParkedWait>): ParkedWait[] {
  return [...parked.values()];
}
