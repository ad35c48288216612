// The delegated task's message-passing surface, shared by the workflow, activities and clients.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Artifact, TaskState } from '../../a2a/schema';

/** human: a question; operator: an approval (or a lost first send); agent: the agent's reply or work; none: the task is over. */
export type WaitingOn = 'human' | 'operator' | 'agent' | 'none';

/** One look at the remote task: a stream frame, a poll, a push, or a reply to our own call. */
export interface Observation {
  source: 'send' | 'stream' | 'poll' | 'push' | 'get' | 'cancel';
  taskId: string;
  contextId?: string;
  /** Set by a watch: which one, and whether this is its first frame (the watch is established). */
  watchId?: string;
  first?: boolean;
  status?: { state: TaskState; timestamp?: string; text?: string };
  /** All artifacts, from a Task snapshot. */
  artifacts?: Artifact[];
  /** One artifact update frame. */
  artifactUpdate?: { artifact: Artifact; append: boolean; lastChunk: boolean };
  /** Set by a v2 watch: the approval round whose alert it has sent. */
  alerted?: number;
  /** Set by a v2 watch that registered the planner's push config (once; the workflow deletes it at the end). */
  pushConfigId?: string;
  /** Set by a v2 watch: why it cannot watch the task right now (null: it can again). */
  problem?: WatchProblem | null;
}

/** A watch that keeps failing: the agent is unreachable or answers errors; the wait is not being watched. */
export interface WatchProblem {
  kind: 'unreachable';
  /** ISO time of the first failure in the current run of failures. */
  since: string;
  /** The last failure, naming the agent and the call. */
  error: string;
}

/** How to settle a first message whose fate the planner could not learn (the reply was lost). */
export type SendResolution = { action: 'resend' } | { action: 'adopt'; taskId: string };

export interface Answer {
  text?: string;
  data?: unknown;
  /** The question turn this answers; when given it must be the current one. */
  turn?: number;
  /** Who answered, for the record (CLI user, API caller, upstream task). */
  from?: string;
}

export interface AnswerResult {
  turn: number;
  /** The agent's state after receiving the answer. */
  state: TaskState;
  text?: string;
}

export interface DelegatedTaskStatus {
  agent: string;
  planId?: string;
  /** The plan step this task runs. */
  stepId?: string;
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  waitingOn: WaitingOn;
  /** While waiting on the agent: what for (its reply to the first message, to an answer; its work). */
  waitingFor?: string;
  /** The question (INPUT_REQUIRED), the approval request (AUTH_REQUIRED) or the last status text. */
  text?: string;
  /** The current question turn: 0 before the first question. */
  turn: number;
  authRounds: number;
  lastUpdate?: string;
  /** Set while the task cannot be watched (the inbox shows it). */
  watchProblem?: WatchProblem;
  /** Set while the first message's fate is unknown and an operator must decide (resend or adopt). */
  unresolvedSend?: string;
  /** The last answer that came by signal (the Temporal UI, a plan's relay) and was refused, and why. */
  refusedAnswer?: RefusedAnswer;
  /** How many runs this workflow has continued as new. */
  continuedAsNew?: number;
}

export interface RefusedAnswer {
  reason: string;
  /** The turn the answer named, if it named one. */
  turn?: number;
  /** Who sent it (an upstream A2A message, for a plan's relay). */
  from?: string;
}

export const answerUpdate = defineUpdate<AnswerResult, [Answer]>('answer');
/** The same answer as a Signal, so that an operator can answer from the Temporal UI. */
export const answerSignal = defineSignal<[Answer]>('answer');
export const observeSignal = defineSignal<[Observation]>('observe');
/** The operator's decision on an ambiguous first send (see `unresolvedSend` in the status). */
export const resolveSendUpdate = defineUpdate<DelegatedTaskStatus, [SendResolution]>('resolveSend');
export const statusQuery = defineQuery<DelegatedTaskStatus>('status');
