// The one set of checks an answer passes, whichever route brings it: the `answer` update (CLI, API),
// the `answer` signal (Temporal UI), and the plan's relays (its own `answer` signal, an upstream A2A
// message). The step checks against what it knows; a plan checks the same rules against the step's
// last reported status first, so a refusal reaches whoever sent the answer at the first place that
// can tell. Deterministic code only.
import { ApplicationFailure } from '@temporalio/workflow';
import type { TaskState } from '../../a2a/schema';
import type { Answer, DelegatedTaskStatus } from './messages';

/** What the checks need to know of a step: its state and the question it published, if any. */
export interface AnswerableView {
  state?: TaskState;
  /** The published question; `current` is false once the agent has asked something since. */
  question?: { turn: number; current: boolean };
  /** An answer to this question is already on its way to the agent. */
  answering: boolean;
}

export type RefusalKind = 'not-waiting' | 'stale' | 'busy' | 'empty';

export interface AnswerRefusal {
  kind: RefusalKind;
  reason: string;
}

/**
 * A signalled answer that is refused is shown where its sender looks (the task's status and details,
 * the plan's step, the plan's A2A task); runs begun before this marker only logged it.
 */
export const REPORT_REFUSED_ANSWERS_PATCH = 'report-refused-answers';

/** How a plan names an answer it relays from its upstream A2A caller (`<this> <messageId>`). */
export const UPSTREAM_ANSWER = 'upstream A2A message';

/** The `type` of the ApplicationFailure that refuses an answer update. */
export const ANSWER_REFUSED = 'AnswerRefused';

/** Why this answer cannot be taken now, or undefined when it can. */
export function answerRefusal(view: AnswerableView, answer: Answer): AnswerRefusal | undefined {
  const { question } = view;
  if (view.state !== 'TASK_STATE_INPUT_REQUIRED') return { kind: 'not-waiting', reason: `the task is not waiting for input (state ${view.state ?? 'unknown'})` };
  if (!question) return { kind: 'stale', reason: 'the agent is asking a question that is not published yet; read it (planner status) and answer that' };
  if (!question.current) return { kind: 'stale', reason: `the agent has asked something new since question ${question.turn}; read it (planner status) and answer that` };
  if (view.answering) return { kind: 'busy', reason: `question ${question.turn} already has an answer being sent` };
  if (answer.turn !== undefined && answer.turn !== question.turn) return { kind: 'stale', reason: `the answer names turn ${answer.turn}, but the current question is turn ${question.turn}` };
  if ((answer.text === undefined || answer.text.trim() === '') && answer.data === undefined) return { kind: 'empty', reason: 'an answer needs text or data' };
  return undefined;
}

/** A step as its plan sees it (the status it last reported): the question counts while it waits on a human. */
export function viewOfReported(status: DelegatedTaskStatus | undefined): AnswerableView {
  const asking = status?.waitingOn === 'human';
  return { state: status?.state, ...(asking ? { question: { turn: status.turn, current: true } } : {}), answering: false };
}

/** The refusal of an answer update, typed so that a caller tells it apart without reading its text. */
export function refuseAnswer(refusal: AnswerRefusal): ApplicationFailure {
  return ApplicationFailure.create({ type: ANSWER_REFUSED, message: `answer rejected: ${refusal.reason}`, nonRetryable: true, details: [refusal.kind] });
}
