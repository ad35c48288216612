// The watch hub's message-passing surface: the worker's shared watch registers the waits it parks
// and forgets those that moved on; a parked wait is told to lease a watch again when its hub dies.
import type { Duration } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** One approval round parked on a worker's shared watch: the workflow and the watch id its signals carry. */
export interface ParkedWait {
  workflowId: string;
  watchId: string;
}

/** A batch of the hub's changes, one signal for all the waits parked or ended in the last moment. */
export interface HubChanges {
  parked: ParkedWait[];
  ended: ParkedWait[];
}

export interface WatchHubInput {
  /** The worker's shared watch this hub stands for (one per worker process). */
  hubId: string;
  /** The task queue only that worker polls: the hold activity runs there, beside the streams. */
  hubQueue: string;
  /** How long the hold activity may go without a heartbeat before the worker counts as gone. */
  heartbeatTimeout: Duration;
  /** The waits parked so far (carried across continue-as-new). */
  parked?: ParkedWait[];
}

export const hubChangesSignal = defineSignal<[HubChanges]>('hubChanges');
export const parkedWaitsQuery = defineQuery<number>('parkedWaits');
/** To a parked wait whose hub is gone: lease a watch again (the named watch is no longer held). */
export const rewatchSignal = defineSignal<[{ watchId: string }]>('rewatch');
