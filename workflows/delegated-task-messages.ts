// The delegated task's message-passing surface, shared by the workflow, activities and clients.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Artifact, TaskState } from '../a2a/schema';

export type WaitingOn = 'human' | 'operator' | 'none';

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
}

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
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  waitingOn: WaitingOn;
  /** The question (INPUT_REQUIRED), the approval request (AUTH_REQUIRED) or the last status text. */
  text?: string;
  /** The current question turn: 0 before the first question. */
  turn: number;
  authRounds: number;
  lastUpdate?: string;
}

export const answerUpdate = defineUpdate<AnswerResult, [Answer]>('answer');
/** The same answer as a Signal, so that an operator can answer from the Temporal UI. */
export const answerSignal = defineSignal<[Answer]>('answer');
export const observeSignal = defineSignal<[Observation]>('observe');
export const statusQuery = defineQuery<DelegatedTaskStatus>('status');
