// The watch hub's message-passing surface: the worker's shared watch registers the waits it parks
// and forgets those that moved on; when its hub dies, another worker adopts them, and a wait no
// worker can adopt is told to lease a watch again.
import type { Duration } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { AgentRef, WatchPolicy } from '../delegated-task/input';
import type { RemoteTaskSnapshot } from '../delegated-task/remote-task';

/** A wait in a hub's register: the workflow and the watch id its signals carry. */
export interface WaitRef {
  workflowId: string;
  watchId: string;
}

/**
 * One approval round parked on a worker's shared watch, with what another worker needs to adopt
 * its stream when this one dies: the agent, the task, what the workflow knows of it (its status,
 * not its artifacts) and the stream's timing.
 */
export interface ParkedWait extends WaitRef {
  agent: AgentRef;
  taskId: string;
  known: RemoteTaskSnapshot;
  policy: Pick<WatchPolicy, 'idleTimeout' | 'pollMax'>;
}

/** A batch of the hub's changes, one signal for all the waits parked or ended in the last moment. */
export interface HubChanges {
  parked: ParkedWait[];
  ended: WaitRef[];
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
/** To a parked wait no shared watch holds any more: lease a watch again (the named watch is no longer held). */
export const rewatchSignal = defineSignal<[{ watchId: string }]>('rewatch');
