// Reading what a workflow recorded: every run of its continue-as-new chain, and its events counted
// by type. The cost suites and the bench's cost figures both count from here.
import type { Client } from '@temporalio/client';

export type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;
export type HistoryEvent = NonNullable<History['events']>[number];

/** Every run of a continue-as-new chain, first run first (at most 1,000). */
export async function chainHistories(client: Client, workflowId: string, firstRunId: string): Promise<History[]> {
  const runs: History[] = [];
  for (let runId: string | undefined = firstRunId; runId && runs.length < 1000; ) {
    const history: History = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.push(history);
    const last = history.events?.[history.events.length - 1];
    runId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** An event's type from its attributes' name, e.g. `WorkflowExecutionSignaled`. */
export function typeOf(e: HistoryEvent): string {
  const name = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k])?.replace(/EventAttributes$/, '') ?? 'unknown';
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** When the server recorded an event, in ms since the epoch. */
export const eventMs = (e: HistoryEvent): number => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

/** How many events of each type a history holds, e.g. { WorkflowExecutionSignaled: 2 }. */
export function eventTypes(history: History): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of history.events ?? []) counts[typeOf(e)] = (counts[typeOf(e)] ?? 0) + 1;
  return counts;
}

/** A Core marker's JSON detail (`key`) when `e` is a marker named `name`; undefined for any other event. */
function markerDetail<T>(e: HistoryEvent, name: string, key: string): T | undefined {
  const marker = e.markerRecordedEventAttributes;
  if (marker?.markerName !== name) return undefined;
  const data = marker.details?.[key]?.payloads?.[0]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString()) as T) : undefined;
}

/** The activity type a local activity's marker names (Core's `core_local_activity`); undefined for any other event. */
export function localActivityType(e: HistoryEvent): string | undefined {
  return markerDetail<{ activity_type?: string }>(e, 'core_local_activity', 'data')?.activity_type;
}

/** The patch a patch marker records (Core's `core_patch`); undefined for any other event. */
export function patchId(e: HistoryEvent): string | undefined {
  return markerDetail<{ id?: string }>(e, 'core_patch', 'patch-data')?.id;
}
