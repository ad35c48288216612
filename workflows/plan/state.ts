// A plan's run state: each step as the plan tracks it (StepRun) and the plan as a whole
// (PlanRunState), with the handlers of the plan's status query and its step signals as methods.
// Every field changes in its own class; PlanWorkflow (workflow.ts) wires the methods to the
// messages and runs the loop.
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { hasPatch } from '../versions';
import type { PlanRunInput, Step } from './input';
import { SubstitutionError, type StepOutput } from './template';
import { summaryLine, taskInput } from './step-input';
import type { PlanResult, PlanState, PlanStatus, StepChanged, StepResult, StepState, StepStatus } from './messages';
import { DelegatedTaskWorkflow } from '../delegated-task/workflow';
import type { DelegatedTaskInput, DelegatedTaskResult } from '../delegated-task/input';
import { answerSignal, type Answer, type DelegatedTaskStatus, type RefusedAnswer, type WaitingOn } from '../delegated-task/messages';
import { REPORT_REFUSED_ANSWERS_PATCH, answerRefusal, viewOfReported } from '../delegated-task/answer-rules';
import { describeFailure } from '../failure-cause';
import { A2aAgent, PlanId, PlannerOwner, firstReplyWait } from '../search-attributes';

const ENDED: ReadonlySet<StepState> = new Set(['completed', 'failed', 'cancelled', 'skipped']);

/** Since this patch a step's late report (an older seq of stepChanged) is dropped, not taken as news. */
export const ORDERED_STEP_REPORTS_PATCH = 'ordered-step-reports';

/** Since this patch a plan's steps carry its PlannerOwner, so a caller's inbox lists its own steps. */
export const OWNER_TO_STEPS_PATCH = 'owner-to-steps';

/**
 * The plan's owner (PlannerOwner, set when it started), for its steps' tasks: none for a plan
 * without one (the CLI's), and none on a run that began before OWNER_TO_STEPS_PATCH.
 */
function ownerForSteps(): Array<{ key: typeof PlannerOwner; value: string }> {
  const owner = workflowInfo().typedSearchAttributes.get(PlannerOwner);
  return owner !== undefined && hasPatch(OWNER_TO_STEPS_PATCH) ? [{ key: PlannerOwner, value: owner }] : [];
}
const URGENCY: WaitingOn[] = ['human', 'operator'];

/** One step as the plan tracks it: its state, its task's last word, and the scope its task runs in. */
export class StepRun {
  state: StepState = 'pending';
  workflowId?: string;
  status?: DelegatedTaskStatus;
  result?: DelegatedTaskResult;
  reason?: string;
  startedAt?: string;
  endedAt?: string;
  scope?: CancellationScope;
  /** An answer the plan refused for this step (its answer signal); cleared by the step's next report. */
  refusedAnswer?: RefusedAnswer;
  /** The `seq` of the report held in `status`. */
  reportSeq?: number;

  constructor(readonly step: Step) {}

  /** Whether a report is newer than the one held (by run, then seq); undefined when either cannot say. */
  isLater(status: DelegatedTaskStatus, seq: number | undefined): boolean | undefined {
    if (seq === undefined || this.reportSeq === undefined || !this.status) return undefined;
    const [run, held] = [status.continuedAsNew ?? 0, this.status.continuedAsNew ?? 0];
    return run !== held ? run > held : seq > this.reportSeq;
  }

  get ended(): boolean {
    return ENDED.has(this.state);
  }

  end(state: StepState, reason?: string): void {
    this.state = state;
    this.reason = reason;
    this.endedAt = new Date().toISOString();
  }

  /**
   * Starts the step's DelegatedTaskWorkflow (`<plan id>.<step id>`) in a scope of its own, so that
   * stopping the plan can cancel it; settles once the child has closed, with the step ended.
   */
  start(childInput: DelegatedTaskInput, planId: string, planName: string): Promise<void> {
    const { step } = this;
    this.state = 'running';
    this.workflowId = `${planId}.${step.id}`;
    this.startedAt = new Date().toISOString();
    this.scope = new CancellationScope();
    return this.scope
      .run(async () => {
        const child = await startChild(DelegatedTaskWorkflow, {
          workflowId: this.workflowId,
          args: [childInput],
          // Cancelling a step waits until its task has cancelled the agent's task.
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          // A plan that is terminated still has its steps cancel their remote tasks.
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          staticSummary: `${planName} / ${step.id}: ${summaryLine(childInput)}`,
          typedSearchAttributes: [
            { key: A2aAgent, value: step.agent },
            ...firstReplyWait(new Date()),
            { key: PlanId, value: planId },
            ...ownerForSteps(),
          ],
        });
        return child.result();
      })
      .then(
        (result) => {
          this.result = result;
          this.end('completed');
        },
        (err: unknown) => this.end(isCancellation(err) ? 'cancelled' : 'failed', describeFailure(err)),
      );
  }

  /** Passes an answer to the step's task, whose own handler decides if it still fits the question; a failed delivery is logged. */
  passAnswer(answer: Answer, notPassed: string): void {
    void getExternalWorkflowHandle(this.workflowId!)
      .signal(answerSignal, answer)
      .catch((err: unknown) => log.warn(notPassed, { stepId: this.step.id, error: String(err) }));
  }

  view(): StepStatus {
    const reported = this.status;
    const waiting = this.state === 'running' && reported ? reported.waitingOn : 'none';
    return {
      id: this.step.id,
      agent: this.step.agent,
      state: this.state,
      dependsOn: this.step.dependsOn,
      ...(this.workflowId ? { workflowId: this.workflowId } : {}),
      ...((this.result?.taskId ?? reported?.taskId) ? { taskId: this.result?.taskId ?? reported?.taskId } : {}),
      ...((this.result?.state ?? reported?.state) ? { remoteState: this.result?.state ?? reported?.state } : {}),
      waitingOn: waiting,
      ...((this.result?.text ?? reported?.text) !== undefined ? { text: this.result?.text ?? reported?.text } : {}),
      turn: reported?.turn ?? 0,
      ...(reported?.authRounds ? { authRounds: reported.authRounds } : {}),
      ...(this.startedAt ? { startedAt: this.startedAt } : {}),
      ...(this.endedAt ? { endedAt: this.endedAt } : {}),
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.result ? { artifacts: this.result.artifacts.map((a) => a.name ?? a.artifactId) } : {}),
      ...(waiting === 'human' && (this.refusedAnswer ?? reported?.refusedAnswer) ? { refusedAnswer: this.refusedAnswer ?? reported?.refusedAnswer } : {}),
      onInput: this.step.onInput,
    };
  }

  /** What later steps may substitute from this one: set once it has completed. */
  output(): StepOutput | undefined {
    return this.state === 'completed' && this.result ? { text: this.result.text, artifacts: this.result.artifacts } : undefined;
  }

  outcome(): StepResult {
    return {
      id: this.step.id,
      agent: this.step.agent,
      state: this.state,
      ...(this.workflowId ? { workflowId: this.workflowId } : {}),
      ...(this.result?.taskId ?? this.status?.taskId ? { taskId: this.result?.taskId ?? this.status?.taskId } : {}),
      ...(this.result?.text !== undefined ? { text: this.result.text } : {}),
      artifacts: this.result?.artifacts ?? [],
      ...(this.reason ? { reason: this.reason } : {}),
    };
  }
}

/** The plan's state, with the handlers that read and change it, and the steps it starts and stops. */
export class PlanRunState {
  readonly steps = new Map<string, StepRun>();
  /** Bumped on every change the main loop must look at. */
  version = 0;
  cancelled = false;
  /** A step with onFailure: stop failed: every other step was stopped, nothing more starts. */
  stopped = false;
  readonly startedAt = new Date().toISOString();

  constructor(
    readonly input: PlanRunInput,
    readonly planId: string,
  ) {
    for (const step of input.plan.steps) this.steps.set(step.id, new StepRun(step));
  }

  /** The stepChanged signal: a step's task reports what it now waits on. */
  stepChanged({ stepId, status, seq }: StepChanged): void {
    const run = this.steps.get(stepId);
    if (!run || run.ended) return; // a late word from a step that has ended says nothing new
    // Signals between workflows may arrive out of order: an older report never replaces a newer one.
    if (run.isLater(status, seq) === false && hasPatch(ORDERED_STEP_REPORTS_PATCH)) return;
    run.reportSeq = seq;
    run.status = status;
    run.refusedAnswer = undefined;
    this.version++;
  }

  /**
   * The answer signal (the Temporal UI's route): the answer rules (answer-rules.ts) against the step's
   * last report, then the step's own checks. A signal cannot be refused, so a refusal is shown on the
   * step (status and details), where the sender looks.
   */
  answerStep({ stepId, ...answer }: Answer & { stepId: string }): void {
    const run = this.steps.get(stepId);
    if (!run) {
      log.warn('answer signal ignored', { reason: `no step "${stepId}" (steps: ${[...this.steps.keys()].join(', ')})` });
      return;
    }
    const relayed = { ...answer, turn: answer.turn ?? run.status?.turn };
    const reason =
      run.view().waitingOn !== 'human'
        ? `step "${stepId}" is not waiting on a question (state ${run.state}, ${run.status?.state ?? 'not started'})`
        : answerRefusal(viewOfReported(run.status), relayed)?.reason;
    if (reason === undefined) {
      run.passAnswer(relayed, 'answer not passed to the step');
      return;
    }
    log.warn('answer signal ignored', { reason });
    if (run.state !== 'running' || !hasPatch(REPORT_REFUSED_ANSWERS_PATCH)) return;
    run.refusedAnswer = { reason, ...(answer.turn !== undefined ? { turn: answer.turn } : {}), from: answer.from ?? "the plan's answer signal" };
    this.version++;
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

  /** The status query. */
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

  running(): boolean {
    return [...this.steps.values()].some((r) => r.state === 'running');
  }

  /** A failed step with onFailure: stop, while the plan has not stopped for one yet. */
  failureThatStops(): StepRun | undefined {
    if (this.stopped) return undefined;
    return [...this.steps.values()].find((r) => r.state === 'failed' && r.step.onFailure === 'stop');
  }

  /**
   * Starts a ready step with its message rendered from the outputs so far; a message that cannot
   * be rendered fails the step instead. The loop looks again when the step's task has closed.
   */
  startStep(run: StepRun): void {
    let childInput: DelegatedTaskInput;
    try {
      childInput = taskInput(this.input, run.step, this.planId, this.outputs());
    } catch (err) {
      if (!(err instanceof SubstitutionError || err instanceof ApplicationFailure)) throw err;
      run.end('failed', err.message);
      return;
    }
    void run.start(childInput, this.planId, this.input.plan.name).finally(() => this.version++);
  }

  /** Stops the plan for a failed step: cancels every step still running, skips every pending one. */
  stopAll(because: string): void {
    this.stopped = true;
    for (const r of this.steps.values()) {
      if (r.state === 'pending') r.end('skipped', `not started: ${because}`);
      else if (r.state === 'running') r.scope?.cancel();
    }
  }

  /** The plan was cancelled: its children are being cancelled with it (their scopes are inside the plan's). */
  markCancelled(): void {
    this.cancelled = true;
  }

  /** Once every child has closed: the steps that never started were skipped because the plan was cancelled. */
  skipPendingAfterCancel(): void {
    for (const r of this.steps.values()) if (r.state === 'pending') r.end('skipped', 'not started: the plan was cancelled');
  }

  outputs(): Record<string, StepOutput | undefined> {
    return Object.fromEntries([...this.steps].map(([id, r]) => [id, r.output()]));
  }

  result(): PlanResult {
    return {
      planId: this.planId,
      name: this.input.plan.name,
      state: this.state() === 'completed' ? 'completed' : 'failed',
      steps: [...this.steps.values()].map((r) => r.outcome()),
    };
  }

  /** The plan's result once every step has ended, or the PlanFailed failure naming each failed step. */
  outcome(): PlanResult {
    const result = this.result();
    if (result.state === 'completed') return result;
    const bad = result.steps.filter((r) => r.state === 'failed');
    throw ApplicationFailure.create({
      type: 'PlanFailed',
      nonRetryable: true,
      message: `plan ${this.input.plan.name}: ${bad.map((r) => `step ${r.id} (${r.agent}) failed: ${r.reason ?? 'no reason given'}`).join('; ') || 'a step did not complete'}`,
      details: [result],
    });
  }
}
