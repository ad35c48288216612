// PlanWorkflow: a plan's steps, each a DelegatedTaskWorkflow child, run in dependency order
// (independent steps at once). Outputs flow into later steps' messages; a failed step stops the
// plan or only its dependents, as the step says; cancelling the plan cancels its children, and
// through them the agents' tasks. The plan shows the most urgent wait among its steps.
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { describeIssues } from '../../a2a/validate';
import { checkPlan, resolveInputs } from './check';
import type { PlanRunInput, Step } from './input';
import { SubstitutionError, render, renderData, type StepOutput } from './template';
import { DelegatedTaskWorkflow } from '../delegated-task/workflow';
import type { DelegatedTaskInput, DelegatedTaskResult } from '../delegated-task/input';
import { checkDelegatedTaskInput } from '../delegated-task/check';
import { a2aSchemas, planSchemas } from '../schemas';
import { answerSignal, type DelegatedTaskStatus, type WaitingOn } from '../delegated-task/messages';
import { describeFailure } from '../failure-cause';
import {
  planAnswerSignal,
  planStatusQuery,
  planTaskQuery,
  planTaskState,
  stepChangedSignal,
  upstreamMessageUpdate,
  PlanUpdateRefusal,
  type PlanA2aInput,
  type PlanWorkflowInput,
  type PlanResult,
  type PlanState,
  type PlanStatus,
  type StepResult,
  type StepState,
  type StepStatus,
} from './messages';
import { PlanPushRecord } from './a2a-push';
import { A2aAgent, A2aTaskState, PlanId, PlannerWaitingOn, PlannerWaitingSince } from '../search-attributes';
import type { Artifact, Message, Part, TaskState, TaskStatus } from '../../a2a/schema';

const ENDED: ReadonlySet<StepState> = new Set(['completed', 'failed', 'cancelled', 'skipped']);
const URGENCY: WaitingOn[] = ['human', 'operator'];

/** One step as the plan tracks it. */
class StepRun {
  state: StepState = 'pending';
  workflowId?: string;
  status?: DelegatedTaskStatus;
  result?: DelegatedTaskResult;
  reason?: string;
  startedAt?: string;
  endedAt?: string;
  scope?: CancellationScope;

  constructor(readonly step: Step) {}

  get ended(): boolean {
    return ENDED.has(this.state);
  }

  end(state: StepState, reason?: string): void {
    this.state = state;
    this.reason = reason;
    this.endedAt = new Date().toISOString();
  }

  view(): StepStatus {
    const st = this.status;
    const waiting = this.state === 'running' && st ? st.waitingOn : 'none';
    return {
      id: this.step.id,
      agent: this.step.agent,
      state: this.state,
      dependsOn: this.step.dependsOn,
      ...(this.workflowId ? { workflowId: this.workflowId } : {}),
      ...((this.result?.taskId ?? st?.taskId) ? { taskId: this.result?.taskId ?? st?.taskId } : {}),
      ...((this.result?.state ?? st?.state) ? { remoteState: this.result?.state ?? st?.state } : {}),
      waitingOn: waiting,
      ...((this.result?.text ?? st?.text) !== undefined ? { text: this.result?.text ?? st?.text } : {}),
      turn: st?.turn ?? 0,
      ...(this.startedAt ? { startedAt: this.startedAt } : {}),
      ...(this.endedAt ? { endedAt: this.endedAt } : {}),
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.result ? { artifacts: this.result.artifacts.map((a) => a.name ?? a.artifactId) } : {}),
      onInput: this.step.onInput,
    };
  }

  output(): StepOutput | undefined {
    return this.state === 'completed' && this.result ? { text: this.result.text, artifacts: this.result.artifacts } : undefined;
  }
}

/** The plan's state, with the handlers that read and change it. */
class PlanRunState {
  readonly steps = new Map<string, StepRun>();
  /** Bumped on every change the main loop must look at. */
  version = 0;
  cancelled = false;
  readonly startedAt = new Date().toISOString();

  constructor(
    readonly input: PlanRunInput,
    readonly planId: string,
  ) {
    for (const step of input.plan.steps) this.steps.set(step.id, new StepRun(step));
  }

  register(): void {
    setHandler(planStatusQuery, () => this.status());
    setHandler(
      stepChangedSignal,
      ({ stepId, status }) => {
        const run = this.steps.get(stepId);
        if (!run || run.ended) return; // a late word from a step that has ended says nothing new
        run.status = status;
        this.version++;
      },
      { description: "A step's task reports what it now waits on (sent by the child)." },
    );
    setHandler(
      planAnswerSignal,
      ({ stepId, ...answer }) => {
        const run = this.steps.get(stepId);
        const why = !run
          ? `no step "${stepId}" (steps: ${[...this.steps.keys()].join(', ')})`
          : run.view().waitingOn !== 'human'
            ? `step "${stepId}" is not waiting on a question (state ${run.state}, ${run.status?.state ?? 'not started'})`
            : undefined;
        if (why) {
          log.warn('answer signal ignored', { reason: why });
          return;
        }
        // The step's own validator decides if the answer still fits its question.
        void getExternalWorkflowHandle(run!.workflowId!)
          .signal(answerSignal, { ...answer, turn: answer.turn ?? run!.status?.turn })
          .catch((err: unknown) => log.warn('answer not passed to the step', { stepId, error: String(err) }));
      },
      { description: 'Answer the question a step waits on: { stepId, text | data, turn? }.' },
    );
  }

  state(): PlanState {
    if (this.cancelled) return 'cancelled';
    const runs = [...this.steps.values()];
    if (!runs.every((r) => r.ended)) return 'running';
    return runs.some((r) => r.state === 'failed' || r.state === 'skipped' || r.state === 'cancelled') ? 'failed' : 'completed';
  }

  waitingOn(): WaitingOn {
    const waits = [...this.steps.values()].map((r) => r.view().waitingOn);
    return URGENCY.find((w) => waits.includes(w)) ?? 'none';
  }

  status(): PlanStatus {
    const { plan, inputs } = this.input;
    return {
      planId: this.planId,
      name: plan.name,
      ...(plan.description ? { description: plan.description } : {}),
      state: this.state(),
      waitingOn: this.waitingOn(),
      inputs,
      steps: [...this.steps.values()].map((r) => r.view()),
      startedAt: this.startedAt,
    };
  }

  /** Steps whose dependencies have all completed. */
  ready(): StepRun[] {
    return [...this.steps.values()].filter((r) => r.state === 'pending' && r.step.dependsOn.every((d) => this.steps.get(d)?.state === 'completed'));
  }

  /** Steps that can never start: something they depend on ended other than completed. */
  blocked(): Array<[StepRun, string]> {
    return [...this.steps.values()].flatMap((r): Array<[StepRun, string]> => {
      if (r.state !== 'pending') return [];
      const dead = r.step.dependsOn.find((d) => {
        const dep = this.steps.get(d);
        return dep !== undefined && dep.ended && dep.state !== 'completed';
      });
      return dead ? [[r, `step ${dead} ${this.steps.get(dead)!.state}`]] : [];
    });
  }

  outputs(): Record<string, StepOutput | undefined> {
    return Object.fromEntries([...this.steps].map(([id, r]) => [id, r.output()]));
  }

  result(): PlanResult {
    return {
      planId: this.planId,
      name: this.input.plan.name,
      state: this.state() === 'completed' ? 'completed' : 'failed',
      steps: [...this.steps.values()].map(
        (r): StepResult => ({
          id: r.step.id,
          agent: r.step.agent,
          state: r.state,
          ...(r.workflowId ? { workflowId: r.workflowId } : {}),
          ...(r.result?.taskId ?? r.status?.taskId ? { taskId: r.result?.taskId ?? r.status?.taskId } : {}),
          ...(r.result?.text !== undefined ? { text: r.result.text } : {}),
          artifacts: r.result?.artifacts ?? [],
          ...(r.reason ? { reason: r.reason } : {}),
        }),
      ),
    };
  }
}

/**
 * The plan as an A2A task, for plans started over A2A (server/face/): the upstream's messages and
 * the planner's own status messages, in order. Kept in memory and rebuilt by replay: recording a
 * status adds no command; only the upstream's own messages (an update) add events.
 */
class PlanTaskRecord {
  readonly history: Message[] = [];
  readonly received = new Map<string, { stepId: string; turn: number; historyIndex: number }>();
  status: TaskStatus;
  /** The state and text last recorded, to record only changes. */
  private last = '';

  constructor(
    readonly planId: string,
    readonly a2a: PlanA2aInput,
    startedAt: string,
  ) {
    this.history.push({ ...a2a.message, taskId: planId, contextId: a2a.contextId });
    this.received.set(a2a.message.messageId, { stepId: '', turn: 0, historyIndex: 1 });
    this.status = { state: 'TASK_STATE_SUBMITTED', timestamp: startedAt };
  }

  /** Records the plan's A2A state when it differs from the last one recorded; returns the status messages added. */
  record(s: PlanRunState): Message[] {
    const now = planTaskState(s.status());
    const key = `${now.state}\n${now.text}`;
    if (key === this.last) return [];
    this.last = key;
    const added: Message[] = [];
    // A wait that ended shows as WORKING before what follows it, even when both were seen at once
    // (the step resumed and finished between two looks): upstream sees INPUT_REQUIRED / AUTH_REQUIRED →
    // WORKING → the next state (§7.6.2). Cancelling ends a wait without resuming it.
    const prev = this.status.state;
    const prevStep = this.status.message?.metadata?.stepId;
    const waited = prev === 'TASK_STATE_INPUT_REQUIRED' || prev === 'TASK_STATE_AUTH_REQUIRED';
    if (waited && now.state !== 'TASK_STATE_WORKING' && now.state !== 'TASK_STATE_CANCELED' && (now.state !== prev || now.stepId !== prevStep)) {
      added.push(this.add('TASK_STATE_WORKING', `Working: step ${String(prevStep)} resumed`, undefined, []));
    }
    added.push(this.add(now.state, now.text, now.stepId, now.queued));
    return added;
  }

  private add(state: TaskState, text: string, stepId: string | undefined, queued: string[]): Message {
    const timestamp = new Date().toISOString();
    const message: Message = {
      messageId: `${this.planId}/status/${this.history.length}`,
      taskId: this.planId,
      contextId: this.a2a.contextId,
      role: 'ROLE_AGENT',
      parts: [{ text, mediaType: 'text/plain' }],
      metadata: { state, timestamp, ...(stepId ? { stepId } : {}), queued },
    };
    this.history.push(message);
    this.status = { state, message, timestamp };
    return message;
  }

  artifacts(s: PlanRunState): Artifact[] {
    // Unique within the task: each step's artifacts are prefixed with the step id.
    return [...s.steps.values()].flatMap((r) => (r.state === 'completed' && r.result ? r.result.artifacts.map((a) => ({ ...a, artifactId: `${r.step.id}/${a.artifactId}` })) : []));
  }

  register(s: PlanRunState): void {
    setHandler(planTaskQuery, () => ({
      id: this.planId,
      contextId: this.a2a.contextId,
      status: this.status,
      artifacts: this.artifacts(s),
      history: this.history,
      metadata: { planId: this.planId, plan: s.input.plan.name },
    }));
    setHandler(
      upstreamMessageUpdate,
      ({ message }) => {
        const seen = this.received.get(message.messageId);
        if (seen) return { ...seen, duplicate: true };
        const asked = planTaskState(s.status());
        const run = s.steps.get(asked.stepId!)!;
        const { text, data } = answerOf(message.parts);
        this.history.push({ ...message, taskId: this.planId, contextId: this.a2a.contextId });
        const turn = run.status!.turn;
        const entry = { stepId: run.step.id, turn, historyIndex: this.history.length };
        this.received.set(message.messageId, entry);
        // The step's own signal handler checks the turn again when the answer arrives.
        void getExternalWorkflowHandle(run.workflowId!)
          .signal(answerSignal, { ...(text !== undefined ? { text } : {}), ...(data !== undefined ? { data } : {}), turn, from: `upstream A2A message ${message.messageId}` })
          .catch((err: unknown) => log.warn('upstream answer not passed to the step', { stepId: run.step.id, error: String(err) }));
        return { ...entry, duplicate: false };
      },
      {
        validator: ({ message }) => {
          const parsed = a2aSchemas().MessageSchema.safeParse(message);
          if (!parsed.success) throw refusal(PlanUpdateRefusal.InvalidMessage, `the message is not valid: ${describeIssues(parsed.error, message)}`);
          if (this.received.has(message.messageId)) return;
          const asked = planTaskState(s.status());
          if (asked.state !== 'TASK_STATE_INPUT_REQUIRED') throw refusal(PlanUpdateRefusal.NotWaitingOnInput, `the task is ${asked.state}, not waiting on input`);
          const { text, data } = answerOf(message.parts);
          if ((text === undefined || text.trim() === '') && data === undefined) throw refusal(PlanUpdateRefusal.InvalidMessage, 'the message has no text or data part to answer with');
        },
        description: "A message from the upstream A2A caller on the plan's task: the answer to the question it was asked.",
      },
    );
  }
}

/** The answer a message carries: its text parts joined, and its first data part. */
function answerOf(parts: Part[]): { text?: string; data?: unknown } {
  const texts = parts.flatMap((p) => ('text' in p && typeof p.text === 'string' ? [p.text] : []));
  const data = parts.find((p) => 'data' in p);
  return { ...(texts.length > 0 ? { text: texts.join('\n') } : {}), ...(data ? { data: (data as { data: unknown }).data } : {}) };
}

/** A refused update, typed so that the caller tells refusals apart by `type` (WorkflowUpdateFailedError's cause). */
function refusal(type: (typeof PlanUpdateRefusal)[keyof typeof PlanUpdateRefusal], message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

function parseA2a(input: PlanWorkflowInput): PlanA2aInput | undefined {
  const { a2a } = input;
  if (a2a === undefined) return undefined;
  const message = a2aSchemas().MessageSchema.safeParse(a2a.message);
  if (typeof a2a.contextId !== 'string' || a2a.contextId === '' || !message.success) {
    throw ApplicationFailure.create({ type: 'InvalidPlan', nonRetryable: true, message: 'invalid PlanWorkflow input: a2a needs a contextId and the upstream message' });
  }
  // Inline webhooks were checked by the face; PlanPushRecord keeps only the ones that still pass.
  const pushConfigs = Array.isArray(a2a.pushConfigs) ? a2a.pushConfigs : undefined;
  return { contextId: a2a.contextId, message: message.data, ...(pushConfigs ? { pushConfigs } : {}) };
}

export async function PlanWorkflow(raw: PlanWorkflowInput): Promise<PlanResult> {
  const input = parseInput(raw);
  const { plan } = input;
  const wf = workflowInfo();
  const planId = wf.workflowId;
  const s = new PlanRunState(input, planId);
  s.register(); // before the first await
  const a2a = parseA2a(raw);
  const task = a2a ? new PlanTaskRecord(planId, a2a, s.startedAt) : undefined;
  task?.register(s);
  // Push notifications to upstream webhooks came later: plans started before them have none.
  const push = a2a && patched('a2a-upstream-push') ? new PlanPushRecord(planId, a2a.pushConfigs) : undefined;
  push?.register();

  let published = '';
  const publish = (): void => {
    const details = describePlan(s.status());
    // A plan served as an A2A task records its state; a change travels in the same upsert.
    const added = task?.record(s) ?? [];
    if (task && push) {
      for (const artifact of task.artifacts(s)) {
        push.notifyArtifact(artifact.artifactId, { artifactUpdate: { taskId: planId, contextId: task.a2a.contextId, artifact, append: false, lastChunk: true } });
      }
      for (const m of added) {
        const status = { state: m.metadata!.state, message: m, timestamp: m.metadata!.timestamp };
        push.notify(m.messageId.slice(planId.length + 1), { statusUpdate: { taskId: planId, contextId: task.a2a.contextId, status } });
      }
    }
    const moved = added.length > 0;
    if (details === published && !moved) return;
    published = details;
    upsertSearchAttributes([
      { key: PlanId, value: planId },
      { key: PlannerWaitingOn, value: s.waitingOn() },
      ...(task ? [{ key: A2aTaskState, value: task.status.state }, { key: PlannerWaitingSince, value: new Date(task.status.timestamp!) }] : []),
    ]);
    setCurrentDetails(details);
  };

  /** The last changes reach the webhooks before the plan ends (bounded: a dead webhook does not hold it). */
  const pushed = async (): Promise<void> => {
    if (push && !push.idle()) await condition(() => push.idle(), '10 minutes');
  };

  const start = (run: StepRun): void => {
    const { step } = run;
    let childInput: DelegatedTaskInput;
    try {
      childInput = taskInput(input, step, planId, s.outputs());
    } catch (err) {
      if (!(err instanceof SubstitutionError || err instanceof ApplicationFailure)) throw err;
      run.end('failed', err.message);
      return;
    }
    run.state = 'running';
    run.workflowId = `${planId}.${step.id}`;
    run.startedAt = new Date().toISOString();
    run.scope = new CancellationScope();
    void run.scope
      .run(async () => {
        const child = await startChild(DelegatedTaskWorkflow, {
          workflowId: run.workflowId,
          args: [childInput],
          // Cancelling a step waits until its task has cancelled the agent's task.
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          // A plan that is terminated still has its steps cancel their remote tasks.
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          staticSummary: `${plan.name} / ${step.id}: ${summaryLine(childInput)}`,
          typedSearchAttributes: [
            { key: A2aAgent, value: step.agent },
            { key: PlannerWaitingOn, value: 'none' },
            { key: PlanId, value: planId },
          ],
        });
        return child.result();
      })
      .then(
        (result) => {
          run.result = result;
          run.end('completed');
        },
        (err: unknown) => run.end(isCancellation(err) ? 'cancelled' : 'failed', describeFailure(err)),
      )
      .finally(() => s.version++);
  };

  /** A failed step with onFailure: stop: cancel every step still running, start nothing more. */
  let stopped = false;
  const stopAll = (because: string): void => {
    stopped = true;
    for (const r of s.steps.values()) {
      if (r.state === 'pending') r.end('skipped', `not started: ${because}`);
      else if (r.state === 'running') r.scope?.cancel();
    }
  };

  const running = (): boolean => [...s.steps.values()].some((r) => r.state === 'running');

  try {
    for (;;) {
      // Start what can start and settle what never will, until nothing more changes at once.
      for (let changed = true; changed; ) {
        changed = false;
        for (const r of s.ready()) {
          start(r);
          changed = true;
        }
        for (const [r, why] of s.blocked()) {
          r.end('skipped', `not started: ${why}`);
          changed = true;
        }
        const failed = [...s.steps.values()].find((r) => r.state === 'failed' && r.step.onFailure === 'stop');
        if (failed && !stopped) {
          stopAll(`step ${failed.step.id} failed`);
          changed = true;
        }
      }
      publish();
      if (!running()) break; // nothing ready, nothing blocked, nothing running: every step has ended
      const v = s.version;
      await condition(() => s.version !== v);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled: every child is being cancelled with us; wait until each has closed.
    s.cancelled = true;
    await CancellationScope.nonCancellable(async () => {
      await condition(() => !running());
      for (const r of s.steps.values()) if (r.state === 'pending') r.end('skipped', 'not started: the plan was cancelled');
      publish();
      await pushed();
      await condition(allHandlersFinished);
    });
    throw err;
  }
  publish();
  await pushed();
  await condition(allHandlersFinished);
  const result = s.result();
  if (result.state === 'completed') return result;
  const bad = result.steps.filter((r) => r.state === 'failed');
  throw ApplicationFailure.create({
    type: 'PlanFailed',
    nonRetryable: true,
    message: `plan ${plan.name}: ${bad.map((r) => `step ${r.id} (${r.agent}) failed: ${r.reason ?? 'no reason given'}`).join('; ') || 'a step did not complete'}`,
    details: [result],
  });
}

/** The DelegatedTaskWorkflow input for a step, its message rendered from inputs and earlier outputs. */
function taskInput(input: PlanRunInput, step: Step, planId: string, outputs: Record<string, StepOutput | undefined>): DelegatedTaskInput {
  const ctx = { inputs: input.inputs, steps: outputs };
  const agent = input.plan.agents[step.agent]!;
  const raw: DelegatedTaskInput = {
    agent: {
      name: step.agent,
      ...(agent.url ? { url: agent.url } : {}),
      ...(agent.card && typeof agent.card === 'object' ? { card: agent.card } : {}),
      ...(agent.binding ? { binding: agent.binding } : {}),
      ...(agent.credentialEnv ? { credentialEnv: agent.credentialEnv } : {}),
    },
    message: {
      ...(step.text !== undefined ? { text: render(step.text, ctx) } : {}),
      ...(step.data !== undefined ? { data: renderData(step.data, ctx) } : {}),
    },
    planId,
    stepId: step.id,
    policies: {
      ...(step.deadlines?.input ? { input: step.deadlines.input } : {}),
      ...(step.deadlines?.auth ? { auth: step.deadlines.auth } : {}),
      ...(step.maxAuthRounds !== undefined ? { maxAuthRounds: step.maxAuthRounds } : {}),
      ...(step.watch ? { watch: step.watch } : {}),
      ...(step.sendTimeout !== undefined ? { sendTimeout: step.sendTimeout } : {}),
    },
  };
  // The child starts with fully parsed input (defaults filled in), like every delegated task.
  const checked = checkDelegatedTaskInput(raw);
  if (!checked.ok) throw ApplicationFailure.create({ type: 'InvalidInput', nonRetryable: true, message: `step ${step.id}: ${checked.problem}` });
  return checked.task;
}

function parseInput(raw: PlanRunInput): PlanRunInput {
  const parsed = planSchemas().PlanRunInputSchema.safeParse(raw);
  const invalid = (why: string): never => {
    throw ApplicationFailure.create({ type: 'InvalidPlan', nonRetryable: true, message: `invalid PlanWorkflow input: ${why}` });
  };
  if (!parsed.success) return invalid(describeIssues(parsed.error, raw));
  const problems = [...checkPlan(parsed.data.plan), ...resolveInputs(parsed.data.plan, parsed.data.inputs).problems];
  if (problems.length > 0) invalid(problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; '));
  for (const [name, agent] of Object.entries(parsed.data.plan.agents)) {
    if (typeof agent.card === 'string') invalid(`agents.${name}.card: a card file must be read before the plan starts (the workflow reads no files)`);
  }
  return parsed.data;
}

function summaryLine(input: DelegatedTaskInput): string {
  const first = (input.message.text ?? JSON.stringify(input.message.data) ?? '').split('\n')[0]!.trim();
  return `${input.agent.name}: ${first.length > 100 ? `${first.slice(0, 97)}...` : first}`;
}

/** The plan as the Temporal UI's current details show it: one line per step, what waits on whom. */
function describePlan(p: PlanStatus): string {
  const done = p.steps.filter((st) => st.state === 'completed').length;
  const lines = p.steps.map((st) => {
    const head = `- **${st.id}** (${st.agent}): `;
    if (st.state === 'pending') return `${head}pending${st.dependsOn.length ? ` (after ${st.dependsOn.join(', ')})` : ''}`;
    if (st.state !== 'running') return `${head}${st.state}${st.reason ? `: ${st.reason}` : ''}`;
    const child = st.workflowId ? ` — task workflow \`${st.workflowId}\`` : '';
    if (st.waitingOn === 'human') {
      return `${head}**waiting on a human** (question turn ${st.turn}):\n  > ${st.text ?? ''}\n  Answer: \`planner answer ${p.planId} ${st.id} <text>\`${child}`;
    }
    if (st.waitingOn === 'operator') return `${head}**waiting on an operator**:\n  > ${st.text ?? ''}${child}`;
    return `${head}${st.remoteState ?? 'starting'}${child}`;
  });
  return `**Plan ${p.name}**: ${p.state}, ${done} of ${p.steps.length} steps completed\n\n${lines.join('\n')}`;
}
