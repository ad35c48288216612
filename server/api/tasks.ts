// Single delegated tasks: read one, answer its question, each only the caller's own (an operator's:
// any; ownership.ts). Reads and answers go through client/delegated-task.ts, the same code the CLI uses.
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { Router } from 'express';
import { answerTaskWithin, DelegatedTaskNotFoundError, describeTask } from '../../client/delegated-task';
import { callerOfResponse } from '../auth';
import type { ApiContext } from '../context';
import { conflict, notFound, parseOr400 } from '../errors';
import { answerWithin, refuseLargeAnswer } from './answer-wait';
import { requireOwnedTask } from './ownership';
import { AnswerBodySchema, TaskParams, type AnswerResultSchema, type TaskSchema } from './schemas';
import type { z } from 'zod';

export function tasksRouter(ctx: ApiContext): Router {
  const router = Router();

  router.get('/tasks/:workflowId', async (req, res) => {
    const { workflowId } = parseOr400(TaskParams, 'path', req.params);
    await withTask(workflowId, () => requireOwnedTask(ctx.temporal, callerOfResponse(res.locals), workflowId));
    const task = await withTask(workflowId, () => describeTask(ctx.temporal, workflowId));
    const body: z.input<typeof TaskSchema> = { ...task, uiUrl: ctx.uiLink(workflowId) };
    res.json(body);
  });

  router.post('/tasks/:workflowId/answer', async (req, res) => {
    const { workflowId } = parseOr400(TaskParams, 'path', req.params);
    const answer = parseOr400(AnswerBodySchema, 'body', req.body);
    refuseLargeAnswer(ctx, answer);
    const caller = callerOfResponse(res.locals);
    // Throws the 404 or 409 that says why the task cannot take an answer; returns when it can.
    const mayAnswer = async (): Promise<void> => {
      const desc = await withTask(workflowId, () => requireOwnedTask(ctx.temporal, caller, workflowId));
      if (desc.status.name !== 'RUNNING') throw conflict(`${workflowId} is ${desc.status.name}, not waiting on a question: nothing to answer`);
    };
    // Another caller's task is read before anything is sent to it. An operator may answer every
    // task, so its answer goes first and the task is read only when the answer fails, to say why:
    // the read is a server round trip on the answer's path (docs/benchmarks.md: 6-10 ms of it).
    if (!caller.operator) await mayAnswer();
    let result;
    try {
      // At most PLANNER_ANSWER_WAIT for the agent's reply; then 202, the answer on its way.
      result = await answerWithin(
        ctx,
        res,
        { workflowId, ...(answer.turn !== undefined ? { turn: answer.turn } : {}), uiUrl: ctx.uiLink(workflowId) },
        (waitMs) =>
          answerTaskWithin(
            ctx.temporal,
            workflowId,
            { ...(answer.text !== undefined ? { text: answer.text } : { data: answer.data }), ...(answer.turn !== undefined ? { turn: answer.turn } : {}), from: 'api' },
            waitMs,
          ),
      );
    } catch (err) {
      // An operator's answer failed: not a task, or not running, says so first.
      if (caller.operator) await mayAnswer();
      // The workflow's validator said why (not waiting, stale turn, an answer already on its way),
      // or the task ended while the answer was on its way.
      if (err instanceof WorkflowUpdateFailedError) throw conflict(`${workflowId}: ${err.cause?.message ?? err.message}`);
      if (err instanceof WorkflowNotFoundError) throw conflict(`${workflowId} closed before the answer arrived`);
      throw err;
    }
    if (!result) return; // 202: pending
    const body: z.input<typeof AnswerResultSchema> = { workflowId, ...result, uiUrl: ctx.uiLink(workflowId) };
    ctx.logger.info({ workflowId, turn: result.turn, state: result.state }, 'answer delivered');
    res.json(body);
  });

  return router;
}

export async function withTask<T>(workflowId: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof DelegatedTaskNotFoundError) throw notFound(err.message);
    if (err instanceof WorkflowNotFoundError) throw notFound(`no delegated task with id ${workflowId}`);
    throw err;
  }
}
