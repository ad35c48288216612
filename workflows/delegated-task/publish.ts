// Publishing what a delegated task waits on, and on whom: search attributes (the inbox is one
// visibility query over them), the Temporal UI's current details, and a stepChanged signal to the
// plan that runs the task as a step. Only a change is published: an unchanged wait costs no command
// and no history event.
import { getExternalWorkflowHandle, isCancellation, log, proxyLocalActivities, setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { hasEveryCoveredPatch, hasPatch } from '../versions';
import { canonicalJson } from '../canonical-json';
import type { PlannerActivities } from '../../activities';
import type { DelegatedTask } from './input';
import type { DelegatedTaskStatus, RefusedAnswer, WaitingOn, WatchProblem } from './messages';
import type { RemoteTask } from './remote-task';
import { A2aAgent, A2aTaskId, A2aTaskState, PlanId, PlanStep, PlannerTurn, PlannerWaitText, PlannerWaitingOn, PlannerWaitingSince, WAIT_TEXT_MAX, fitted, toTextAttribute } from '../search-attributes';
import { stepChangedSignal, type StepChanged } from '../plan/messages';

/** What a delegation shows of itself (the Delegation class, read only). */
export interface PublishedState {
  readonly task: RemoteTask;
  readonly turn: number;
  readonly question?: { readonly turn: number };
  readonly problem?: WatchProblem;
  readonly unresolvedSend?: string;
  readonly refusedAnswer?: RefusedAnswer;
  status(): DelegatedTaskStatus;
  waitingOn(): WaitingOn;
}

/**
 * Since this patch a step does not report its completion to its plan: the plan reads the end from
 * the child's result, and the report only held the step open until it landed (a plan workflow task
 * and two of the step's beside the next step's start).
 */
export const NO_COMPLETION_REPORT_PATCH = 'no-completion-report';

/**
 * Since this patch a step sends by a local activity (activities/report-step.ts) the reports whose
 * signal's acknowledgement would land as the run closes: a question's (the answer's update may
 * close the run, and would wait a workflow task for that event first) and a terminal state's (a
 * signal sent as its run closes is dropped by the server). A local report has reached the plan when
 * the workflow task that sent it completes, but holds that task's commands until then: the other
 * reports (an approval's, progress) start a watch in the same task, and stay signals, whose
 * acknowledgement lands while the watch waits.
 */
export const LOCAL_REPORTS_PATCH = 'local-step-reports';

export class Publisher {
  /** The details last published: the same wait again publishes nothing. */
  private published = '';
  /** Reports sent to the plan by this run, so that it can tell a late one from the latest. */
  private reports = 0;
  /** Settles once the last report has reached the plan (or failed to). */
  private lastReport: Promise<void> = Promise.resolve();
  /** Reports not yet delivered, with the history length when each was sent: each lands as an event of this run. */
  private readonly inFlight = new Map<Promise<void>, number>();
  /** What the first send reported of its question (canonical JSON): the question's own report is not sent again when it says the same. */
  private reportedBySend: string | undefined;
  /** Local reports not yet delivered: they are, before the workflow task that sent them completes. */
  private readonly localInFlight = new Set<Promise<void>>();
  /** One try: a report that fails is signalled from the workflow instead, which the server retries. */
  private readonly local = proxyLocalActivities<PlannerActivities>({ startToCloseTimeout: '5s', retry: { maximumAttempts: 1 } });

  constructor(
    private readonly input: DelegatedTask,
    /** The plan this task is a step of, when a plan started it. */
    private readonly parentWorkflowId: string | undefined,
  ) {}

  publish(state: PublishedState): void {
    const { input } = this;
    const waitingOn = state.waitingOn();
    const details = describeWait(input.agent.name, state, waitingOn);
    if (details === this.published) return; // nothing new: no commands, no history events
    this.published = details;
    // What the inbox shows travels in the same upsert: one visibility call lists every wait.
    const waiting = waitingOn !== 'none';
    upsertSearchAttributes(fitted([
      { key: A2aAgent, value: input.agent.name },
      ...(input.planId ? [{ key: PlanId, value: input.planId }] : []),
      ...(input.stepId ? [{ key: PlanStep, value: input.stepId }] : []),
      ...(state.task.taskId ? [{ key: A2aTaskId, value: state.task.taskId }] : []),
      ...(state.task.state ? [{ key: A2aTaskState, value: state.task.state }] : []),
      { key: PlannerWaitingOn, value: waitingOn },
      { key: PlannerWaitText, value: waiting ? toTextAttribute(clipWaitText(waitText(state, waitingOn))) : null },
      { key: PlannerTurn, value: waitingOn === 'human' ? (state.question?.turn ?? state.turn) : null },
      { key: PlannerWaitingSince, value: waiting ? waitingSince(state.unresolvedSend ? undefined : state.task.timestamp) : null },
    ]));
    setCurrentDetails(details);
    // A plan's step tells its plan, which shows the most urgent wait among its steps; its completion
    // reaches the plan as the child's result (a failure or cancel is still reported: the plan shows
    // the remote state from the report, as a failed child returns none).
    if (this.parentWorkflowId && input.stepId && !(state.task.state === 'TASK_STATE_COMPLETED' && hasPatch(NO_COMPLETION_REPORT_PATCH))) {
      const status = state.status();
      const bySend = this.reportedBySend;
      this.reportedBySend = undefined;
      if (bySend !== undefined && bySend === canonicalJson(status)) return; // the plan holds it already
      const change = { stepId: input.stepId, status, seq: ++this.reports };
      if ((waitingOn === 'human' || state.task.terminal) && hasPatch(LOCAL_REPORTS_PATCH)) {
        const report = this.reportLocally(this.parentWorkflowId, change).finally(() => this.localInFlight.delete(report));
        this.localInFlight.add(report);
        this.lastReport = report;
        return;
      }
      const report = this.signal(this.parentWorkflowId, change).finally(() => this.inFlight.delete(report));
      this.inFlight.set(report, workflowInfo().historyLength);
      this.lastReport = report;
    }
  }

  /**
   * The report of the first question, for the first send to deliver beside its alert
   * (activities/send-message.ts): the status this step shows at that question, the task's fields
   * the send's to fill in. None when the step would not report a question locally (LOCAL_REPORTS_PATCH,
   * asked here, before the task that asks it, only as one of every covered change).
   */
  questionReport(state: PublishedState, turn: number): { planWorkflowId: string; change: StepChanged } | undefined {
    if (!this.parentWorkflowId || !this.input.stepId || !hasEveryCoveredPatch()) return undefined;
    const { waitingFor: _, ...now } = state.status();
    return { planWorkflowId: this.parentWorkflowId, change: { stepId: this.input.stepId, status: { ...now, waitingOn: 'human', turn }, seq: this.reports + 1 } };
  }

  /**
   * A first send is back. The report built for it took its seq whether or not it reached the plan
   * (an attempt in a workflow task that was lost may have delivered it), so every later report is
   * newer; the question's own is not sent when the send's said the same under a seq of its own.
   */
  afterSend(built: { change: StepChanged } | undefined, delivered: StepChanged | undefined): void {
    if (!built) return;
    const own = built.change.seq === this.reports + 1; // no other report took it meanwhile
    this.reports = Math.max(this.reports, built.change.seq ?? 0);
    if (delivered && own) this.reportedBySend = canonicalJson(delivered.status);
  }

  private signal(planWorkflowId: string, change: StepChanged): Promise<void> {
    return getExternalWorkflowHandle(planWorkflowId)
      .signal(stepChangedSignal, change)
      .catch((err: unknown) => log.warn('plan not told of the step change', { error: String(err) }));
  }

  private async reportLocally(planWorkflowId: string, change: StepChanged): Promise<void> {
    try {
      await this.local.reportStep({ planWorkflowId, change });
    } catch (err) {
      if (isCancellation(err)) return log.warn('plan not told of the step change', { error: String(err) });
      await this.signal(planWorkflowId, change);
    }
  }

  /** The last report to the plan, delivered (a step's last word must reach its plan before the step closes). */
  reported(): Promise<void> {
    return this.lastReport;
  }

  /**
   * The reports sent by an earlier workflow task and not yet delivered, as one promise; none when
   * there are none (a report of this task cannot land before this task ends).
   */
  earlierReports(): Promise<unknown> | undefined {
    const now = workflowInfo().historyLength;
    const earlier = [...this.inFlight].filter(([, sentAt]) => sentAt < now).map(([report]) => report);
    return earlier.length > 0 ? Promise.all(earlier) : undefined;
  }

  /** Every report not yet delivered, as one promise; none when there are none. */
  allReports(): Promise<unknown> | undefined {
    return this.inFlight.size > 0 ? Promise.all(this.inFlight.keys()) : undefined;
  }

  /** True while a local report is on its way (it arrives within the workflow task that sent it). */
  get reporting(): boolean {
    return this.localInFlight.size > 0;
  }

  /** The local reports not yet delivered, as one promise (they are within this workflow task); none when there are none. */
  localReports(): Promise<unknown> | undefined {
    return this.localInFlight.size > 0 ? Promise.all(this.localInFlight) : undefined;
  }
}

/** The UI's current details: the task, its state, and what it waits for in the agent's own words. */
function describeWait(agent: string, state: PublishedState, waitingOn: WaitingOn): string {
  const task = state.task;
  const head = `**${agent}** task \`${task.taskId ?? '(not created yet)'}\`: ${task.state ?? 'sending'}`;
  const refused = state.refusedAnswer ? `\n\n**Answer refused**${state.refusedAnswer.from ? ` (${state.refusedAnswer.from})` : ''}: ${state.refusedAnswer.reason}` : '';
  const problem = (state.problem ? `\n\n**Not watched**: ${state.problem.error} (since ${state.problem.since}); still trying.` : '') + refused;
  if (state.unresolvedSend) return `${head}\n\nWaiting on an operator:\n\n> ${state.unresolvedSend}`;
  if (waitingOn === 'human') return `${head}\n\nWaiting on a human (question turn ${state.question?.turn}):\n\n> ${task.text ?? ''}\n\nAnswer with the \`answer\` update or signal.${problem}`;
  if (waitingOn === 'operator') return `${head}\n\nWaiting on an operator (approval round ${task.authEntries}):\n\n> ${task.text ?? ''}${problem}`;
  const on = waitingOn === 'agent' ? `\n\nWaiting on ${agentWait(state.task)}.` : '';
  return (task.text ? `${head}${on}\n\n> ${task.text}` : `${head}${on}`) + problem;
}

/**
 * What the planner waits for from the agent, read from the remote state alone (the details change
 * exactly when the state does, so replays publish at the same points).
 */
export function agentWait(task: RemoteTask): string {
  if (task.taskId === undefined) return "the agent's reply to the first message";
  if (task.state === 'TASK_STATE_SUBMITTED') return 'the agent to start the task (SUBMITTED)';
  if (task.state === 'TASK_STATE_INPUT_REQUIRED') return "the agent's reply to the answer";
  return 'the agent to finish its work (WORKING)';
}

/** The inbox's text: the question or request; for the agent, what is awaited and its last words. */
function waitText(state: PublishedState, waitingOn: WaitingOn): string {
  const text = state.status().text ?? '';
  if (waitingOn !== 'agent') return text;
  return text ? `waiting on ${agentWait(state.task)}: ${text}` : `waiting on ${agentWait(state.task)}`;
}

function clipWaitText(text: string): string {
  return text.length > WAIT_TEXT_MAX ? `${text.slice(0, WAIT_TEXT_MAX - 1)}…` : text;
}

/** The agent's own status time when it reads as one, else now (workflow time). */
function waitingSince(timestamp: string | undefined): Date {
  const time = timestamp === undefined ? Number.NaN : Date.parse(timestamp);
  return new Date(Number.isNaN(time) ? Date.now() : time);
}
