// PlanWorkflow's contract, shared by the workflow, its children, the clients and the face: its
// input, its signals, queries and updates with their types, and the types of failure by which it
// refuses an update. Contract only: the behaviour behind it lives in the folder's other files.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Artifact, Message, Task, TaskState } from '../../a2a/schema';
import type { Answer, DelegatedTaskStatus, RefusedAnswer, WaitingOn } from '../delegated-task/messages';
import type { PlanRunInput } from './input';

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
  /** The approval rounds the step's agent has asked for so far. */
  authRounds?: number;
  startedAt?: string;
  endedAt?: string;
  /** Why it failed, was cancelled or skipped. */
  reason?: string;
  /** Names of the artifacts of a completed step. */
  artifacts?: string[];
  /** The last answer to this step's question that was refused (by the plan or the step), and why. */
  refusedAnswer?: RefusedAnswer;
  /** Who answers the step's questions: ask (a person, CLI/API/UI) or forward (the upstream A2A caller). */
  onInput?: 'ask' | 'forward';
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

/**
 * A child tells its plan what it now waits on (sent only when that changes). `seq` counts the
 * reports of the child's run (status.continuedAsNew says which run): Temporal does not keep
 * signals from one workflow to another in order, so the plan keeps the latest by it.
 */
export interface StepChanged {
  stepId: string;
  status: DelegatedTaskStatus;
  seq?: number;
}
export const stepChangedSignal = defineSignal<[StepChanged]>('stepChanged');
/** Answer a step's question from the Temporal UI: the plan passes it to the step's task. Prefer the client's answerStep. */
export const planAnswerSignal = defineSignal<[Answer & { stepId: string }]>('answer');
export const planStatusQuery = defineQuery<PlanStatus>('status');

// ---------------------------------------------------------------------------------------------
// The plan as an A2A task (the planner's own A2A face, server/face/). A plan started over A2A
// carries `a2a` in its input; it keeps the upstream's messages and its own status messages, and
// answers the a2aTask query with the Task the face serves. The mapping of a plan's state onto an
// A2A task state (planTaskState) is behaviour: it lives in a2a-task.ts.

/** What the face puts beside the plan in PlanWorkflow's input (PlanRunInputSchema strips it: the workflow parses it apart). */
export interface PlanA2aInput {
  contextId: string;
  /** The upstream's first message, as received (wire form), with taskId and contextId filled in. */
  message: Message;
  /** A webhook given inline with the first message (configuration.taskPushNotificationConfig). */
  pushConfigs?: NewPushConfig[];
  /** The most push configs the task may have (PLANNER_PUSH_CONFIGS_PER_TASK when the face started it); absent: PUSH_CONFIGS_PER_TASK. */
  maxPushConfigs?: number;
}

/** The most push configs a task may have when its input does not say (plans started before the bound). */
export const PUSH_CONFIGS_PER_TASK = 10;

/** PlanWorkflow's input: the plan run, and for a plan started over A2A, the task it serves. */
export type PlanWorkflowInput = PlanRunInput & { a2a?: PlanA2aInput };

/**
 * Why the plan refused an update: the `type` of the ApplicationFailure its validator throws
 * (WorkflowUpdateFailedError's cause). Callers tell refusals apart by it, never by the message.
 */
export const PlanUpdateRefusal = {
  /** upstreamMessage: the task is not INPUT_REQUIRED. */
  NotWaitingOnInput: 'NotWaitingOnInput',
  /** upstreamMessage: the message is not a valid A2A message, or has no text or data part to answer with. */
  InvalidMessage: 'InvalidMessage',
  /** createPushConfig: the config's url, scheme or sealed field cannot be used. */
  InvalidPushConfig: 'InvalidPushConfig',
  /** createPushConfig: the task has as many configs as it may (PlanA2aInput.maxPushConfigs). */
  TooManyPushConfigs: 'TooManyPushConfigs',
} as const;
export type PlanUpdateRefusalType = (typeof PlanUpdateRefusal)[keyof typeof PlanUpdateRefusal];

/** The plan as the face serves it: a Task in wire form with the whole history (the face trims it). */
export type PlanTask = Task & { contextId: string; history: Message[] };

/** A message from the upstream on the plan's task: routed to the step whose question is asked. */
export interface UpstreamMessage {
  message: Message;
}
export interface UpstreamMessageResult {
  stepId: string;
  /** The question turn the answer was passed to. */
  turn: number;
  /** The message had been received before (same messageId): nothing was sent again. */
  duplicate: boolean;
  /** How many messages the task's history held once this one was recorded. */
  historyIndex: number;
}
export const upstreamMessageUpdate = defineUpdate<UpstreamMessageResult, [UpstreamMessage]>('upstreamMessage');
/** The plan as an A2A task; null for a plan not started over A2A. */
export const planTaskQuery = defineQuery<PlanTask | null>('a2aTask');

/**
 * A webhook an upstream caller registered for the plan's task (its id the caller's, or assigned by the plan). Its
 * token and authentication credentials travel sealed (a2a/sealed-credentials.ts): history never
 * holds them in the clear.
 */
export interface UpstreamPushConfig {
  id: string;
  url: string;
  /** authentication.scheme, e.g. Bearer. */
  scheme?: string;
  /** The token and credentials, sealed by the face with PLANNER_WEBHOOK_SECRET. */
  sealed?: string;
  /**
   * "0.3": registered by an A2A v0.3 caller, whose webhook gets v0.3's bare `kind`-tagged events
   * (activities/deliver-push.ts). Absent: v1.0. The plan only carries it; its records stay v1.0.
   */
  protocolVersion?: '0.3';
}
/** A config to register: `id` is the caller's own, when it gave one (a second create with it replaces that config). */
export type NewPushConfig = Omit<UpstreamPushConfig, 'id'> & { id?: string };
/** A config id a caller may choose: it names the config in REST paths and in delivery keys (`<task>/<event>/<config>`). */
const PUSH_CONFIG_ID = /^[A-Za-z0-9._~-]{1,128}$/;
/** Why `id` is not a config id a caller may choose, naming the value; undefined when it is one. */
export function configIdProblem(id: unknown): string | undefined {
  return typeof id === 'string' && PUSH_CONFIG_ID.test(id) ? undefined : `${JSON.stringify(id)} is not a config id (1 to 128 letters, digits, '.', '_', '~' or '-')`;
}
export const createPushConfigUpdate = defineUpdate<UpstreamPushConfig, [NewPushConfig]>('createPushConfig');
/** Idempotent: deleting a config that is not there succeeds (spec §3.1.10); the result says whether one was. */
export const deletePushConfigUpdate = defineUpdate<{ deleted: boolean }, [{ id: string }]>('deletePushConfig');
/** The task's push configs, in creation order; [] for a plan with no push support (started before it). */
export const pushConfigsQuery = defineQuery<UpstreamPushConfig[]>('a2aPushConfigs');

