// Reading workflow histories: event counts, payload bytes, and where the wall time of a run went.
import { eventMs, localActivityType, type History, type HistoryEvent } from '../../client/history';

export { chainHistories, eventMs, eventTypes, typeOf, type History, type HistoryEvent } from '../../client/history';

/** Bytes of every payload (data + metadata) recorded in the history. */
export function payloadBytes(h: History): number {
  let total = 0;
  const seen = new Set<unknown>();
  const walk = (x: unknown): void => {
    if (!x || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    if (x instanceof Uint8Array) return;
    const o = x as Record<string, unknown>;
    if (o.data instanceof Uint8Array && 'metadata' in o) {
      total += o.data.byteLength;
      for (const [k, v] of Object.entries((o.metadata ?? {}) as Record<string, unknown>)) total += k.length + (v instanceof Uint8Array ? v.byteLength : 0);
      return;
    }
    for (const v of Object.values(o)) walk(v);
  };
  walk(h.events);
  return total;
}


export interface Span {
  category: string;
  from: number;
  to: number;
  /** Lower wins where spans overlap. */
  priority: number;
}

/**
 * The spans of one run: workflow tasks (dispatch: scheduled → started; processing: started →
 * completed) and activities (dispatch and run) by activity type, from the events' own times.
 */
export function spansOf(h: History): { spans: Span[]; start: number; end: number; activityRuns: { type: string; from: number; to: number }[] } {
  const events = h.events ?? [];
  const byId = new Map<number, HistoryEvent>();
  const spans: Span[] = [];
  const activityRuns: { type: string; from: number; to: number }[] = [];
  const startedAt = new Map<number, number>();
  const processingOf = new Map<number, Span>();
  for (const e of events) {
    const id = Number(e.eventId);
    byId.set(id, e);
    const t = eventMs(e);
    if (e.workflowTaskStartedEventAttributes) {
      const sched = byId.get(Number(e.workflowTaskStartedEventAttributes.scheduledEventId));
      if (sched) spans.push({ category: 'workflow task dispatch', from: eventMs(sched), to: t, priority: 2 });
      startedAt.set(id, t);
    }
    const done = e.workflowTaskCompletedEventAttributes ?? e.workflowTaskFailedEventAttributes ?? e.workflowTaskTimedOutEventAttributes;
    if (done) {
      const from = startedAt.get(Number(done.startedEventId));
      if (from !== undefined) {
        spans.push({ category: 'workflow task processing (worker + completion RPC)', from, to: t, priority: 1 });
        if (e.workflowTaskCompletedEventAttributes) processingOf.set(id, spans.at(-1)!);
      }
    }
    // A local activity runs inside the workflow task that recorded its marker (its marker's times are
    // workflow time, not the run's): that task's processing is the activity's run.
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const type = localActivityType(e);
      const span = processingOf.get(Number(marker.workflowTaskCompletedEventId));
      if (span && (type === 'sendMessage' || type === 'watchRemoteTask')) span.category = `activity ${type}`;
      else if (span && span.category.startsWith('workflow task')) span.category = 'side activity';
    }
    if (e.activityTaskStartedEventAttributes) {
      const sched = byId.get(Number(e.activityTaskStartedEventAttributes.scheduledEventId));
      const type = sched?.activityTaskScheduledEventAttributes?.activityType?.name ?? '?';
      const main = type === 'sendMessage' || type === 'watchRemoteTask';
      if (sched) spans.push({ category: main ? 'activity dispatch' : 'side activity dispatch', from: eventMs(sched), to: t, priority: main ? 4 : 8 });
      startedAt.set(id, t);
    }
    const adone = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskCanceledEventAttributes ?? e.activityTaskTimedOutEventAttributes;
    if (adone) {
      const sched = byId.get(Number(adone.scheduledEventId));
      const type = sched?.activityTaskScheduledEventAttributes?.activityType?.name ?? '?';
      const from = startedAt.get(Number(adone.startedEventId));
      if (from !== undefined) {
        const main = type === 'sendMessage' || type === 'watchRemoteTask';
        spans.push({ category: main ? `activity ${type}` : 'side activity', from, to: t, priority: main ? 3 : 9 });
        activityRuns.push({ type, from, to: t });
      }
    }
  }
  const start = events[0] ? eventMs(events[0]) : 0;
  const end = events.length ? eventMs(events[events.length - 1]!) : 0;
  return { spans, start, end, activityRuns };
}

/**
 * Splits [from, to] among the spans: at each instant the span of lowest priority number wins;
 * time no span covers goes to `uncovered`. The parts add up to to − from.
 */
export function sweep(spans: Span[], from: number, to: number, uncovered: string): Record<string, number> {
  const points = [...new Set([from, to, ...spans.flatMap((s) => [s.from, s.to])])].filter((p) => p >= from && p <= to).sort((a, b) => a - b);
  const out: Record<string, number> = {};
  for (let i = 0; i + 1 < points.length; i++) {
    const [a, b] = [points[i]!, points[i + 1]!];
    const mid = (a + b) / 2;
    let best: Span | undefined;
    for (const s of spans) if (s.from <= mid && mid < s.to && (!best || s.priority < best.priority)) best = s;
    const cat = best?.category ?? uncovered;
    out[cat] = (out[cat] ?? 0) + (b - a);
  }
  return out;
}
