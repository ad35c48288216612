// How many streams each caller holds open on this server process: /v1 plan event streams and the
// A2A face's SubscribeToTask and SendStreamingMessage share one count per principal. Each open
// stream long-polls Temporal; a thousand from one token slowed every other plan twenty-fold, so a
// caller gets PLANNER_STREAMS_PER_CALLER at once and the next is a 429 naming that bound. The
// count is per replica (it lives in this process): N replicas allow N times as many.
import type { Response } from 'express';
import { principalOfResponse } from './auth';

/** Seconds a refused caller is told to wait before trying again (Retry-After). */
export const STREAM_RETRY_AFTER_S = 5;

export class CallerStreams {
  private readonly open = new Map<string, number>();

  constructor(readonly perCaller: number) {}

  /**
   * Takes a slot for the request's caller, given back when the response closes; false (nothing
   * taken) when the caller already holds every slot it may.
   */
  take(res: Response): boolean {
    const principal = principalOfResponse(res.locals);
    const held = this.open.get(principal) ?? 0;
    if (held >= this.perCaller) return false;
    this.open.set(principal, held + 1);
    res.once('close', () => {
      const now = (this.open.get(principal) ?? 1) - 1;
      if (now > 0) this.open.set(principal, now);
      else this.open.delete(principal);
    });
    return true;
  }

  /** What a refused caller is told: the bound, its value, and what to do. */
  refusal(): string {
    return `this caller already holds ${this.perCaller} open event streams and subscriptions, the most one caller may hold on one server (PLANNER_STREAMS_PER_CALLER (${this.perCaller})); close one and retry`;
  }
}
