// PlanWorkflow's message-passing surface, shared by the workflow, its children and clients.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { Artifact, TaskState } from '../a2a/schema';
import type { Answer, DelegatedTaskStatus, WaitingOn } from './delegated-task-messages';

/**
 * pending: waits for the steps it depends on; running: its task is under way (see waitingOn);
 * completed / failed / cancelled: how its task ended; skipped: never started (a step it needed failed,
 * or the plan stopped).
 */
export type StepState = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'skipped';

export interface StepStatus {
  id: string;
  agent: string;
  state: StepState;
  dependsOn: string[];
  /** The step's DelegatedTaskWorkflow (set once started). */
  workflowId?: string;
  /** The remote A2A task. */
  taskId?: string;
  remoteState?: TaskState;
  waitingOn: WaitingOn;
  /** The question (human), the approval request (operator), or the agent's last status text. */
  text?: string;
  /** The current question turn (answers may name it). */
  turn: number;
  startedAt?: string;
  endedAt?: string;
  /** Why it failed, was cancelled or skipped. */
  reason?: string;
  /** Names of the artifacts of a completed step. */
  artifacts?: string[];
}

export type PlanState = 'running' | 'completed' | 'failed' | 'cancelled';

export interface PlanStatus {
  planId: string;
  name: string;
  description?: string;
  state: PlanState;
  /** The most urgent wait among the steps: human (a question) before operator (an approval). */
  waitingOn: WaitingOn;
  inputs: Record<string, string>;
  steps: StepStatus[];
  startedAt: string;
}

export interface StepResult {
  id: string;
  agent: string;
  state: StepState;
  workflowId?: string;
  taskId?: string;
  text?: string;
  artifacts: Artifact[];
  reason?: string;
}

export interface PlanResult {
  planId: string;
  name: string;
  state: 'completed' | 'failed';
  steps: StepResult[];
}

/** A child tells its plan what it now waits on (sent only when that changes). */
export const stepChangedSignal = defineSignal<[{ stepId: string; status: DelegatedTaskStatus }]>('stepChanged');
/** Answer a step's question from the Temporal UI: the plan passes it to the step's task. Prefer the client's answerStep. */
export const planAnswerSignal = defineSignal<[Answer & { stepId: string }]>('answer');
export const planStatusQuery = defineQuery<PlanStatus>('status');
