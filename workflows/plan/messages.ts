// PlanWorkflow's message-passing surface, shared by the workflow, its children and clients.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Artifact, Message, Task, TaskState } from '../../a2a/schema';
import type { Answer, DelegatedTaskStatus, WaitingOn } from '../delegated-task/messages';

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

/** A child tells its plan what it now waits on (sent only when that changes). */
export const stepChangedSignal = defineSignal<[{ stepId: string; status: DelegatedTaskStatus }]>('stepChanged');
/** Answer a step's question from the Temporal UI: the plan passes it to the step's task. Prefer the client's answerStep. */
export const planAnswerSignal = defineSignal<[Answer & { stepId: string }]>('answer');
export const planStatusQuery = defineQuery<PlanStatus>('status');

// ---------------------------------------------------------------------------------------------
// The plan as an A2A task (the planner's own A2A face, server/face/). A plan started over A2A
// carries `a2a` in its input; it keeps the upstream's messages and its own status messages, and
// answers the a2aTask query with the Task the face serves. planTaskState is the ONE mapping of a
// plan's state onto an A2A task state (docs/a2a-server.md has it as a table).

/** What the face puts beside the plan in PlanWorkflow's input (read from the raw input: PlanRunInputSchema strips it). */
export interface PlanA2aInput {
  contextId: string;
  /** The upstream's first message, as received (wire form), with taskId and contextId filled in. */
  message: Message;
  /** A webhook given inline with the first message (configuration.taskPushNotificationConfig). */
  pushConfigs?: Array<Omit<UpstreamPushConfig, 'id'>>;
}

export interface PlanTaskState {
  state: TaskState;
  /** The status message's text. */
  text: string;
  /** The step whose question the upstream is asked (INPUT_REQUIRED), or whose approval is awaited (AUTH_REQUIRED). */
  stepId?: string;
  /** Other steps waiting (questions queued behind the one asked, approvals awaited), in plan order. */
  queued: string[];
}

const isWaiting = (s: StepStatus, on: WaitingOn): boolean => s.state === 'running' && s.waitingOn === on;
const who = (s: StepStatus): string => `agent ${s.agent} (step ${s.id}${s.taskId ? `, its task ${s.taskId}` : ''})`;

/**
 * The plan's state as an A2A task state. Precedence, in plan order among steps:
 * ended plans map to their terminal state; a question a step forwards (onInput: forward) makes
 * INPUT_REQUIRED (the upstream can act on it); else an approval any step awaits makes
 * AUTH_REQUIRED (it travels outside A2A: the upstream sends nothing); else WORKING.
 */
export function planTaskState(p: Pick<PlanStatus, 'state' | 'steps'>, failure?: string): PlanTaskState {
  if (p.state === 'completed') return { state: 'TASK_STATE_COMPLETED', text: `Plan completed: ${p.steps.length} of ${p.steps.length} steps done`, queued: [] };
  if (p.state === 'cancelled') return { state: 'TASK_STATE_CANCELED', text: 'Plan cancelled; the agents\' tasks were cancelled with it', queued: [] };
  if (p.state === 'failed') {
    const bad = p.steps.filter((s) => s.state === 'failed');
    const why = failure ?? (bad.map((s) => `step ${s.id} (${s.agent}) failed: ${s.reason ?? 'no reason given'}`).join('; ') || 'a step did not complete');
    return { state: 'TASK_STATE_FAILED', text: `Plan failed: ${why}`, queued: [] };
  }
  const questions = p.steps.filter((s) => isWaiting(s, 'human') && s.onInput === 'forward');
  const approvals = p.steps.filter((s) => isWaiting(s, 'operator'));
  const localQuestions = p.steps.filter((s) => isWaiting(s, 'human') && s.onInput !== 'forward');
  const queuedLine = (rest: StepStatus[]): string =>
    rest.length === 0 ? '' : `\n\nAlso waiting (asked one at a time, in plan order): ${rest.map((s) => `${s.id} (${s.waitingOn === 'human' ? 'a question' : 'an approval'} from ${s.agent})`).join(', ')}.`;
  if (questions.length > 0) {
    const [asked, ...rest] = questions;
    const others = [...rest, ...approvals];
    return {
      state: 'TASK_STATE_INPUT_REQUIRED',
      text: `${who(asked!)} asks: ${asked!.text ?? ''}${queuedLine(others)}`,
      stepId: asked!.id,
      queued: others.map((s) => s.id),
    };
  }
  if (approvals.length > 0) {
    const [awaited, ...rest] = approvals;
    return {
      state: 'TASK_STATE_AUTH_REQUIRED',
      text: `${who(awaited!)} needs authorization: ${awaited!.text ?? ''}${queuedLine(rest)}`,
      stepId: awaited!.id,
      queued: rest.map((s) => s.id),
    };
  }
  const running = p.steps.filter((s) => s.state === 'running');
  const local = localQuestions.length > 0 ? ` (${localQuestions.map((s) => `step ${s.id} waits on a person's answer`).join(', ')})` : '';
  return {
    state: 'TASK_STATE_WORKING',
    text: running.length > 0 ? `Working: ${running.map((s) => `${s.id} (${s.agent}: ${s.remoteState ?? 'starting'})`).join(', ')}${local}` : 'Working',
    queued: [],
  };
}

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
 * A webhook an upstream caller registered for the plan's task (its id assigned by the plan). Its
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
}
export const createPushConfigUpdate = defineUpdate<UpstreamPushConfig, [Omit<UpstreamPushConfig, 'id'>]>('createPushConfig');
/** Idempotent: deleting a config that is not there succeeds (spec §3.1.10); the result says whether one was. */
export const deletePushConfigUpdate = defineUpdate<{ deleted: boolean }, [{ id: string }]>('deletePushConfig');
/** The task's push configs, in creation order; [] for a plan with no push support (started before it). */
export const pushConfigsQuery = defineQuery<UpstreamPushConfig[]>('a2aPushConfigs');

/** Why the plan refused an update: the `type` of the ApplicationFailure its validators throw (the face matches on it). */
export const PlanUpdateRefusal = { NotWaitingOnInput: 'NotWaitingOnInput', InvalidMessage: 'InvalidMessage', InvalidPushConfig: 'InvalidPushConfig' } as const;

/** PlanWorkflow's input: the run, and for a plan started over A2A what the face puts beside it. */
export type PlanWorkflowInput = import('./input').PlanRunInput & { a2a?: PlanA2aInput };
