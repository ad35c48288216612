// The plan as an A2A task, for plans started over A2A (the planner's own face, server/face/): the
// one mapping of a plan's state onto an A2A task state (planTaskState; docs/a2a-server.md has it as
// a table), the task's record of messages it serves through the a2aTask query, and the upstream's
// answers it routes to the step whose question it was asked. Deterministic code only.
import { ApplicationFailure } from '@temporalio/workflow';
import { hasPatch } from '../versions';
import { describeIssues } from '../../a2a/validate';
import type { Artifact, Message, Part, TaskState, TaskStatus } from '../../a2a/schema';
import type { WaitingOn } from '../delegated-task/messages';
import { UPSTREAM_ANSWER, answerRefusal, viewOfReported } from '../delegated-task/answer-rules';
import { a2aSchemas } from '../schemas';
import {
  PlanUpdateRefusal,
  type PlanA2aInput,
  type PlanStatus,
  type PlanTask,
  type PlanUpdateRefusalType,
  type PlanWorkflowInput,
  type StepStatus,
  type UpstreamMessage,
  type UpstreamMessageResult,
} from './messages';
import type { PlanRunState } from './state';

export interface PlanTaskState {
  state: TaskState;
  /** The status message's text. */
  text: string;
  /** The step whose question the upstream is asked (INPUT_REQUIRED), or whose approval is awaited (AUTH_REQUIRED). */
  stepId?: string;
  /** That step's question turn, or approval round: the same words asked again are a new status. */
  turn?: number;
  /** Other steps waiting (questions queued behind the one asked, approvals awaited), in plan order. */
  queued: string[];
}

const isWaiting = (step: StepStatus, on: WaitingOn): boolean => step.state === 'running' && step.waitingOn === on;
const who = (step: StepStatus): string => `agent ${step.agent} (step ${step.id}${step.taskId ? `, its task ${step.taskId}` : ''})`;

/**
 * The plan's state as an A2A task state. Precedence, in plan order among steps:
 * ended plans map to their terminal state; a question a step forwards (onInput: forward) makes
 * INPUT_REQUIRED (the upstream can act on it); else an approval any step awaits makes
 * AUTH_REQUIRED (it travels outside A2A: the upstream sends nothing); else WORKING.
 */
export function planTaskState(plan: Pick<PlanStatus, 'state' | 'steps'>, failure?: string): PlanTaskState {
  if (plan.state === 'completed') return { state: 'TASK_STATE_COMPLETED', text: `Plan completed: ${plan.steps.length} of ${plan.steps.length} steps done`, queued: [] };
  if (plan.state === 'cancelled') return { state: 'TASK_STATE_CANCELED', text: cancelledText(plan.steps), queued: [] };
  if (plan.state === 'failed') {
    const bad = plan.steps.filter((s) => s.state === 'failed');
    const why = failure ?? (bad.map((s) => `step ${s.id} (${s.agent}) failed: ${s.reason ?? 'no reason given'}`).join('; ') || 'a step did not complete');
    return { state: 'TASK_STATE_FAILED', text: `Plan failed: ${why}`, queued: [] };
  }
  const questions = plan.steps.filter((s) => isWaiting(s, 'human') && s.onInput === 'forward');
  const approvals = plan.steps.filter((s) => isWaiting(s, 'operator'));
  const localQuestions = plan.steps.filter((s) => isWaiting(s, 'human') && s.onInput !== 'forward');
  const queuedLine = (rest: StepStatus[]): string =>
    rest.length === 0 ? '' : `\n\nAlso waiting (asked one at a time, in plan order): ${rest.map((s) => `${s.id} (${s.waitingOn === 'human' ? 'a question' : 'an approval'} from ${s.agent})`).join(', ')}.`;
  if (questions.length > 0) {
    const [asked, ...rest] = questions;
    const others = [...rest, ...approvals];
    // An upstream answer that the step refused after the plan passed it on (the question moved in
    // between): the caller reads why in the status it is sent again.
    const refused = asked!.refusedAnswer?.from?.startsWith(UPSTREAM_ANSWER) ? `\n\nYour answer (${asked!.refusedAnswer.from}) was refused: ${asked!.refusedAnswer.reason}` : '';
    return {
      state: 'TASK_STATE_INPUT_REQUIRED',
      text: `${who(asked!)} asks: ${asked!.text ?? ''}${refused}${queuedLine(others)}`,
      stepId: asked!.id,
      turn: asked!.turn,
      queued: others.map((s) => s.id),
    };
  }
  if (approvals.length > 0) {
    const [awaited, ...rest] = approvals;
    return {
      state: 'TASK_STATE_AUTH_REQUIRED',
      text: `${who(awaited!)} needs authorization: ${awaited!.text ?? ''}${queuedLine(rest)}`,
      stepId: awaited!.id,
      // An approval's turn is its round: a second approval in the same words is a new status too.
      turn: awaited!.authRounds,
      queued: rest.map((s) => s.id),
    };
  }
  const running = plan.steps.filter((s) => s.state === 'running');
  const local = localQuestions.length > 0 ? ` (${localQuestions.map((s) => `step ${s.id} waits on a person's answer`).join(', ')})` : '';
  return {
    state: 'TASK_STATE_WORKING',
    text: running.length > 0 ? `Working: ${running.map((s) => `${s.id} (${s.agent}: ${s.remoteState ?? 'starting'})`).join(', ')}${local}` : 'Working',
    queued: [],
  };
}

/** A cancelled plan's last word: which of the agents' tasks it cancelled, and which it could not. */
function cancelledText(steps: StepStatus[]): string {
  const stopped = steps.filter((s) => s.state === 'cancelled' && s.taskId);
  const done = stopped.filter((s) => s.remoteState === 'TASK_STATE_CANCELED');
  const left = stopped.filter((s) => s.remoteState !== 'TASK_STATE_CANCELED');
  const named = (s: StepStatus): string => `${s.id} (${s.agent} task ${s.taskId})`;
  if (stopped.length === 0) return 'Plan cancelled; no agent had a task of it running';
  return [
    'Plan cancelled',
    ...(done.length ? [`the agents' tasks cancelled: ${done.map(named).join(', ')}`] : []),
    ...(left.length ? [`could not be cancelled: ${left.map((s) => `${named(s)}, ${s.remoteState ?? 'state unknown'}`).join('; ')}`] : []),
  ].join('; ');
}

/**
 * The `a2a` field of PlanWorkflow's input, checked: the face wrote it, but the workflow starts only
 * with input it has parsed. Undefined for a plan not started over A2A.
 */
export function parseA2a(input: PlanWorkflowInput): PlanA2aInput | undefined {
  const { a2a } = input;
  if (a2a === undefined) return undefined;
  const message = a2aSchemas().MessageSchema.safeParse(a2a.message);
  if (typeof a2a.contextId !== 'string' || a2a.contextId === '' || !message.success) {
    throw ApplicationFailure.create({ type: 'InvalidPlan', nonRetryable: true, message: 'invalid PlanWorkflow input: a2a needs a contextId and the upstream message' });
  }
  // Inline webhooks were checked by the face; PlanPushRecord keeps only the ones that still pass.
  const pushConfigs = Array.isArray(a2a.pushConfigs) ? a2a.pushConfigs : undefined;
  const max = a2a.maxPushConfigs;
  const maxPushConfigs = typeof max === 'number' && Number.isInteger(max) && max >= 1 ? max : undefined;
  return { contextId: a2a.contextId, message: message.data, ...(pushConfigs ? { pushConfigs } : {}), ...(maxPushConfigs ? { maxPushConfigs } : {}) };
}

/** The answer a message carries: its text parts joined, and its first data part. */
export function answerOf(parts: Part[]): { text?: string; data?: unknown } {
  const texts = parts.flatMap((p) => ('text' in p && typeof p.text === 'string' ? [p.text] : []));
  const data = parts.find((p) => 'data' in p);
  return { ...(texts.length > 0 ? { text: texts.join('\n') } : {}), ...(data ? { data: (data as { data: unknown }).data } : {}) };
}

/**
 * Since this patch the task records a status on every turn of a step, not only when its state or
 * text changes: an agent that asks the same question again has asked a new one, and the caller
 * who answered the first waits for it (each record is a push delivery: a new command).
 */
export const A2A_TURNS_PATCH = 'a2a-turns';

/**
 * The plan's A2A task: the upstream's messages and the planner's own status messages, in order.
 * Kept in memory and rebuilt by replay: recording a status adds no command; only the upstream's
 * own messages (an update) add events.
 */
export class PlanTaskRecord {
  readonly history: Message[] = [];
  readonly received = new Map<string, { stepId: string; turn: number; historyIndex: number }>();
  status: TaskStatus;
  /** The state, text and turn last recorded, to record only changes. */
  private last = '';
  /** A2A_TURNS_PATCH, decided once when the plan starts. */
  private readonly turns: boolean;

  constructor(
    private readonly plan: PlanRunState,
    readonly a2a: PlanA2aInput,
  ) {
    this.history.push({ ...a2a.message, taskId: plan.planId, contextId: a2a.contextId });
    this.received.set(a2a.message.messageId, { stepId: '', turn: 0, historyIndex: 1 });
    this.status = { state: 'TASK_STATE_SUBMITTED', timestamp: plan.startedAt };
    this.turns = hasPatch(A2A_TURNS_PATCH);
  }

  get taskId(): string {
    return this.plan.planId;
  }

  /** The a2aTask query: the task as the face serves it. */
  task(): PlanTask {
    return {
      id: this.taskId,
      contextId: this.a2a.contextId,
      status: this.status,
      artifacts: this.artifacts(),
      history: this.history,
      metadata: { planId: this.taskId, plan: this.plan.input.plan.name },
    };
  }

  /** Records the plan's A2A state when it differs from the last one recorded; returns the status messages added. */
  record(): Message[] {
    const now = planTaskState(this.plan.status());
    const turn = this.turns ? now.turn : undefined;
    const key = `${now.state}\n${now.text}\n${now.stepId ?? ''}@${turn ?? ''}`;
    if (key === this.last) return [];
    this.last = key;
    const added: Message[] = [];
    // A wait that ended shows as WORKING before what follows it, even when both were seen at once
    // (the step resumed and finished between two looks): upstream sees INPUT_REQUIRED / AUTH_REQUIRED →
    // WORKING → the next state (§7.6.2). Cancelling ends a wait without resuming it.
    const prev = this.status.state;
    const prevStep = this.status.message?.metadata?.stepId;
    const prevTurn = this.status.message?.metadata?.turn;
    const waited = prev === 'TASK_STATE_INPUT_REQUIRED' || prev === 'TASK_STATE_AUTH_REQUIRED';
    const moved = now.state !== prev || now.stepId !== prevStep || turn !== prevTurn;
    if (waited && now.state !== 'TASK_STATE_WORKING' && now.state !== 'TASK_STATE_CANCELED' && moved) {
      added.push(this.add('TASK_STATE_WORKING', `Working: step ${String(prevStep)} resumed`, undefined, []));
    }
    added.push(this.add(now.state, now.text, now.stepId, now.queued, turn));
    return added;
  }

  private add(state: TaskState, text: string, stepId: string | undefined, queued: string[], turn?: number): Message {
    const timestamp = new Date().toISOString();
    const message: Message = {
      messageId: `${this.taskId}/status/${this.history.length}`,
      taskId: this.taskId,
      contextId: this.a2a.contextId,
      role: 'ROLE_AGENT',
      parts: [{ text, mediaType: 'text/plain' }],
      metadata: { state, timestamp, ...(stepId ? { stepId } : {}), ...(stepId && turn !== undefined ? { turn } : {}), queued },
    };
    this.history.push(message);
    this.status = { state, message, timestamp };
    return message;
  }

  /** The completed steps' artifacts, unique within the task: each prefixed with its step's id. */
  artifacts(): Artifact[] {
    return [...this.plan.steps.values()].flatMap((run) => {
      const output = run.output();
      return output ? output.artifacts.map((a) => ({ ...a, artifactId: `${run.step.id}/${a.artifactId}` })) : [];
    });
  }

  /**
   * The upstreamMessage update's validator: an update it refuses leaves no event in history, and the
   * face tells its caller why by the failure's type (PlanUpdateRefusal), never by its text.
   */
  checkMessage({ message }: UpstreamMessage): void {
    const parsed = a2aSchemas().MessageSchema.safeParse(message);
    if (!parsed.success) throw refusal(PlanUpdateRefusal.InvalidMessage, `the message is not valid: ${describeIssues(parsed.error, message)}`);
    if (this.received.has(message.messageId)) return;
    const asked = planTaskState(this.plan.status());
    if (asked.state !== 'TASK_STATE_INPUT_REQUIRED') throw refusal(PlanUpdateRefusal.NotWaitingOnInput, `the task is ${asked.state}, not waiting on input`);
    const { text, data } = answerOf(message.parts);
    if ((text === undefined || text.trim() === '') && data === undefined) throw refusal(PlanUpdateRefusal.InvalidMessage, 'the message has no text or data part to answer with');
    // The same rules as every other route (answer-rules.ts), against the asked step's last report.
    const refused = answerRefusal(viewOfReported(this.plan.steps.get(asked.stepId!)?.status), { text, data });
    if (refused) throw refusal(refused.kind === 'empty' ? PlanUpdateRefusal.InvalidMessage : PlanUpdateRefusal.NotWaitingOnInput, refused.reason);
  }

  /** The upstreamMessage update: records the message and passes its answer to the step whose question the task asks. */
  receive({ message }: UpstreamMessage): UpstreamMessageResult {
    const seen = this.received.get(message.messageId);
    if (seen) return { ...seen, duplicate: true };
    const asked = planTaskState(this.plan.status());
    const run = this.plan.steps.get(asked.stepId!)!;
    const { text, data } = answerOf(message.parts);
    this.history.push({ ...message, taskId: this.taskId, contextId: this.a2a.contextId });
    const turn = run.status!.turn;
    const entry = { stepId: run.step.id, turn, historyIndex: this.history.length };
    this.received.set(message.messageId, entry);
    // The step's own signal handler checks the turn again when the answer arrives.
    run.passAnswer(
      { ...(text !== undefined ? { text } : {}), ...(data !== undefined ? { data } : {}), turn, from: `${UPSTREAM_ANSWER} ${message.messageId}` },
      'upstream answer not passed to the step',
    );
    return { ...entry, duplicate: false };
  }
}

/** A refused update, typed so that the caller tells refusals apart by `type` (WorkflowUpdateFailedError's cause). */
function refusal(type: PlanUpdateRefusalType, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}
