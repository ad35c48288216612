// What the two answer routes (a task's, a plan step's) share beyond parsing: the answer's size bound
// (PLANNER_ANSWER_MAX_BYTES, a 400 naming body.text or body.data), and the time limit on waiting for
// the agent's reply (PLANNER_ANSWER_WAIT). An answer waits for the agent, which may take long or be
// down; once the task has taken the answer it is durable and on its way, so the request answers
// 202 (accepted, the reply pending) rather than hold the connection. When the task's workflow did
// not even take it in time (no worker), a 504 says so: the caller looks before answering again.
import type { Response } from 'express';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import type { z } from 'zod';
import { AnswerNotTakenError, type AnswerOutcome } from '../../client/delegated-task';
import type { AnswerResult } from '../../workflows/delegated-task/messages';
import { answerSizeProblem } from '../answer-bounds';
import type { ApiContext } from '../context';
import { ApiError } from '../errors';
import type { AnswerPendingSchema } from './schemas';

/** Throws the 400 naming the part of the answer over PLANNER_ANSWER_MAX_BYTES. */
export function refuseLargeAnswer(ctx: ApiContext, answer: { text?: string; data?: unknown }): void {
  const problem = answerSizeProblem(answer, ctx.config.PLANNER_ANSWER_MAX_BYTES);
  if (problem) throw new ApiError(400, 'invalid_request', `invalid request: body.${problem.part}: ${problem.message}`, [{ path: `body.${problem.part}`, message: problem.message }]);
}

/**
 * Runs `answer` with PLANNER_ANSWER_WAIT as its wait; sends the 202 itself when the reply is still
 * pending (and returns undefined), throws the 504 when the answer was not taken in time.
 */
export async function answerWithin(
  ctx: ApiContext,
  res: Response,
  pending: Omit<z.input<typeof AnswerPendingSchema>, 'accepted' | 'pending' | 'message'>,
  answer: (waitMs: number) => Promise<AnswerOutcome>,
): Promise<AnswerResult | undefined> {
  const wait = ctx.config.PLANNER_ANSWER_WAIT;
  let outcome: AnswerOutcome;
  try {
    outcome = await answer(msToNumber(wait as Duration));
  } catch (err) {
    if (err instanceof AnswerNotTakenError) {
      throw new ApiError(504, 'timeout', `the answer was not taken within PLANNER_ANSWER_WAIT (${wait}): ${pending.workflowId} did not accept it (is a planner worker running?). It may still take it: read the task before answering again`);
    }
    throw err;
  }
  if (outcome.kind === 'replied') return outcome.result;
  const body: z.input<typeof AnswerPendingSchema> = {
    ...pending,
    accepted: true,
    pending: 'agent-reply',
    message: `the answer was accepted and is on its way to the agent, which had not replied within PLANNER_ANSWER_WAIT (${wait}); read the task (or the plan) for its next state`,
  };
  res.status(202).json(body);
  return undefined;
}
