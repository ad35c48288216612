// GET /v1/plans/:planId/events: the plan's state changes as server-sent events, read from Temporal
// so that any replica can serve a subscriber and a subscriber adds nothing to the workflow's
// history. The server follows the plan's history (client/follow-history.ts: a long poll, as
// `temporal workflow show --follow` does); each time the history moves it reads the plan's
// `status` query and sends an event only when the status changed. No signal, no update,
// no per-subscriber state in the workflow.
//
//   event: status   data: {planId, workflowStatus, ...PlanStatus}   (first the current state, then each change)
//   event: problem  data: {message}   (the status could not be read; the stream goes on)
//   event: end      data: {planId, workflowStatus, state}   (the plan closed; the stream ends)
import { isGrpcDeadlineError, type WorkflowExecutionDescription } from '@temporalio/client';
import type { Request, Response } from 'express';
import { followHistory } from '../../client/follow-history';
import { planStatusQuery, type PlanStatus } from '../../workflows/plan/messages';
import type { ApiContext } from '../context';

const QUERY_MS = 10_000;
/** A comment line this often keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

/** `first`: the plan as the route found it (and checked it is the caller's), before the stream starts. */
export async function streamPlanEvents(ctx: ApiContext, first: WorkflowExecutionDescription, req: Request, res: Response): Promise<void> {
  const planId = first.workflowId;
  let desc: WorkflowExecutionDescription = first;
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();

  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  const log = (res.locals.log as typeof ctx.logger | undefined) ?? ctx.logger;
  let seq = 0;
  const send = (event: string, data: unknown): void => {
    res.write(`id: ${++seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };

  let last: string | undefined;
  let lastProblem: string | undefined;
  const readStatus = async (runId: string, workflowStatus: string): Promise<void> => {
    try {
      const status: PlanStatus = await ctx.temporal.withDeadline(Date.now() + QUERY_MS, () => ctx.temporal.workflow.getHandle(planId, runId).query(planStatusQuery));
      const text = JSON.stringify(status);
      lastProblem = undefined;
      if (text === last) return;
      last = text;
      send('status', { ...status, workflowStatus });
    } catch (err) {
      if (abort.signal.aborted) return;
      const message = isGrpcDeadlineError(err)
        ? `the status query got no answer within ${QUERY_MS / 1000} s: is a planner worker running on task queue ${desc.taskQueue}?`
        : err instanceof Error
          ? err.message
          : String(err);
      if (message !== lastProblem) send('problem', { planId, message });
      lastProblem = message;
    }
  };

  try {
    await readStatus(desc.runId, desc.status.name);
    for await (const move of followHistory(ctx.temporal, planId, { runId: desc.runId, signal: abort.signal })) {
      if (move.kind === 'unavailable') send('problem', { planId, message: move.message });
      else if (move.kind === 'moved') await readStatus(move.runId, 'RUNNING');
      else {
        desc = move.description;
        await readStatus(desc.runId, desc.status.name);
        const state = last ? (JSON.parse(last) as PlanStatus).state : undefined;
        send('end', { planId, workflowStatus: desc.status.name, ...(state ? { state } : {}) });
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) {
      log.error({ err, planId }, 'plan event stream failed');
      send('problem', { planId, message: 'the event stream failed; reconnect to resume' });
    }
  } finally {
    clearInterval(keepalive);
    res.end();
  }
}
