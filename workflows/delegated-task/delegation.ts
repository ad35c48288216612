// Delegation: one delegated task's state and everything that changes it. workflow.ts routes each
// handler here and loops over the waits below (first message, question, approval, progress); each
// method changes only this object's fields, and carry() hands them to the next run (continue-as-new).
import { ApplicationFailure, CancellationScope, allHandlersFinished, condition, log, workflowInfo } from '@temporalio/workflow';
import { hasPatch } from '../versions';
import { msToNumber } from '@temporalio/common/lib/time';
import type { WatchResult } from '../../activities';
import type { DelegatedTask, DelegatedTaskResult } from './input';
import type { Answer, AnswerResult, DelegatedTaskStatus, Observation, RefusedAnswer, SendResolution, WatchProblem } from './messages';
import { REPORT_REFUSED_ANSWERS_PATCH, answerRefusal, refuseAnswer, type AnswerableView } from './answer-rules';
import { AUTH_ROUNDS_BY_TIME_PATCH, RemoteTask, STATUS_WORDS_WITHOUT_TIME_PATCH, artifactKey } from './remote-task';
import { CONFIRM_PUSHED_END_PATCH, PushedEndConfirmation } from './pushed-end';
import { Alerts, type AlertKind } from './alerts';
import { CANCEL_FOLLOWS_SEND_PATCH, followedSend, sendCalls, shortCalls, type Calls } from './calls';
import { LocalFirst } from './local-first';
import type { DelegatedTaskCarry, Question, Wait } from './carry';
import { actOnDeadline, backstopPollMs, inputPollMs, nearer, untilDeadline, waitFor } from './deadlines';
import { authRoundsExceeded, checkResolution } from './outcome';
import { Publisher } from './publish';
import { statusOf } from './status';
import { WatchLease, WatchLeases } from './watch';

/** The watch of an approval round is kept through AUTH_REQUIRED → WORKING: restarting it dropped the
 * terminal state it may already hold and cost a new subscription and ~12 history events per approval. */
export const KEEP_WATCH_PATCH = 'keep-watch-after-approval';
/** Since this patch a task SUBMITTED or WORKING for longer than policies.working meets its deadline policy. */
export const WORKING_DEADLINE_PATCH = 'working-deadline';

export class Delegation {
  readonly task: RemoteTask;
  // What a run hands the next (DelegatedTaskCarry), fresh values for the first run.
  turn = 0;
  question?: Question;
  wait?: Wait;
  /** The whole task's deadline clock: from the first run's start. */
  overall: Wait = { key: 'total', since: Date.now(), reminders: 0, leases: 0 };
  authAlerted = 0;
  inputAlerted = 0;
  pushConfigId?: string;
  watchSeq = 0;
  problem?: WatchProblem;
  runs = 0;
  // This run's own.
  watch?: WatchLease;
  /** The approval round whose lease parked on push (a new run looks again first). */
  parkedRound?: number;
  pendingAnswer?: Answer & { turn: number };
  readonly replies = new Map<number, AnswerResult>();
  unresolvedSend?: string;
  resolution?: SendResolution;
  /** The last signalled answer this run refused, shown until an answer is taken. */
  refusedAnswer?: RefusedAnswer;
  /** Set when the run is ending (e.g. `cancelled`): handlers still waiting give up with that reason. */
  closing?: string;
  /** Bumped when something the inbox shows changes without a status change (a watch problem). */
  shown = 0;
  private readonly pushedEnd: PushedEndConfirmation;

  private readonly workflowId: string;
  private readonly runId: string;
  /** The first run's id: ids scoped to it never meet a reused workflow id's task, alerts or watches. */
  private readonly chain: string;
  private readonly sends: LocalFirst;
  private readonly calls: Calls;
  readonly alerts: Alerts;
  private readonly leases: WatchLeases;
  readonly publisher: Publisher;

  constructor(readonly input: DelegatedTask, carry: DelegatedTaskCarry | undefined, localFirst: boolean) {
    const { task, ...carried } = carry ?? { task: undefined };
    this.task = task ? RemoteTask.from(task) : new RemoteTask();
    this.task.roundsByTime = () => hasPatch(AUTH_ROUNDS_BY_TIME_PATCH);
    this.task.wordsWithoutTime = () => hasPatch(STATUS_WORDS_WITHOUT_TIME_PATCH);
    Object.assign(this, carried);
    const info = workflowInfo();
    this.workflowId = info.workflowId;
    this.runId = info.runId;
    this.chain = info.firstExecutionRunId;
    this.calls = shortCalls(input.agent);
    this.sends = new LocalFirst(localFirst, sendCalls(input.policies), this.calls);
    this.pushedEnd = new PushedEndConfirmation(this.task, this.calls, this.input.agent);
    this.alerts = new Alerts((alert) => this.sends.alert(alert), input, this.workflowId, this.chain);
    this.leases = new WatchLeases(info.taskQueue, input.policies.watch);
    this.publisher = new Publisher(input, info.parent?.workflowId);
  }

  carry(): DelegatedTaskCarry {
    return {
      task: this.task.snapshot(),
      turn: this.turn,
      question: this.question,
      wait: this.wait,
      ...(this.input.policies.total ? { overall: this.overall } : {}),
      authAlerted: this.authAlerted,
      inputAlerted: this.inputAlerted,
      pushConfigId: this.pushConfigId,
      watchSeq: this.watchSeq,
      problem: this.problem,
      runs: this.runs + 1,
    };
  }

  status(): DelegatedTaskStatus {
    return statusOf(this);
  }

  observe(observation: Observation): Promise<void> | void {
    // A watch of an earlier lease, run or workflow (a reused id) has nothing to say to this one.
    if (observation.watchId !== undefined && observation.watchId !== this.watch?.id) return;
    if (this.pushedEnd.endsTask(observation) && hasPatch(CONFIRM_PUSHED_END_PATCH)) return this.pushedEnd.confirm();
    this.task.apply(observation);
    if (observation.alerted !== undefined) this.authAlerted = Math.max(this.authAlerted, observation.alerted);
    if (observation.pushConfigId !== undefined) this.pushConfigId = observation.pushConfigId;
    if (observation.problem !== undefined) {
      this.problem = observation.problem ?? undefined;
      this.shown++;
    }
  }

  /** The `rewatch` signal: the shared watch holding the parked round is gone, so the round leases a watch again. */
  rewatch(watchId: string): void {
    if (watchId === this.watch?.id) this.parkedRound = undefined;
  }

  /** The `answer` update: hands the answer to the question's wait; replies once it was sent. */
  async deliverAnswer(answer: Answer): Promise<AnswerResult> {
    const turn = this.question!.turn; // the validator checked that this question is published
    this.pendingAnswer = { ...answer, turn };
    await condition(() => this.replies.has(turn) || this.task.terminal || this.closing !== undefined);
    const reply = this.replies.get(turn);
    if (reply) return reply;
    const ended = this.task.terminal ? `ended ${this.task.state}` : `was ${this.closing ?? 'closed'}`;
    throw ApplicationFailure.create({
      type: 'TaskEnded',
      message: `${this.input.agent.name} task ${this.task.taskId} ${ended} before the answer to question ${turn} was sent`,
    });
  }

  validateAnswer(answer: Answer): void {
    const refusal = answerRefusal(this.answerable(), answer);
    if (refusal) throw refuseAnswer(refusal);
  }

  /** The `answer` signal (UI, a plan's relays): a refusal is shown in the status, details and plan. */
  takeSignalledAnswer(answer: Answer): void {
    const refusal = answerRefusal(this.answerable(), answer);
    if (!refusal) [this.pendingAnswer, this.refusedAnswer] = [{ ...answer, turn: this.question!.turn }, undefined];
    else log.warn('answer signal ignored', { reason: refusal.reason });
    if (!refusal || !hasPatch(REPORT_REFUSED_ANSWERS_PATCH)) return;
    this.refusedAnswer = { reason: refusal.reason, ...(answer.turn !== undefined ? { turn: answer.turn } : {}), ...(answer.from ? { from: answer.from } : {}) };
    this.publish();
  }

  /** The `resolveSend` update: the operator's decision, taken up by sendFirst; replies once it was acted on. */
  async resolveSend(resolution: SendResolution): Promise<DelegatedTaskStatus> {
    this.resolution = resolution;
    await condition(() => this.unresolvedSend === undefined);
    return this.status();
  }

  validateResolution(resolution: SendResolution): void {
    checkResolution(resolution, this.unresolvedSend !== undefined);
  }

  // ---- The waits: one per remote state, each returning when the state may have moved ----
  /** Sends the first message; returns the result when the agent answered with a Message and made no task. */
  async sendFirst(): Promise<DelegatedTaskResult | undefined> {
    const { agent, message, policies } = this.input;
    const messageId = `${this.workflowId}/${this.chain}/0`;
    // The first send holds a stream until the task stops; a working deadline bounds that hold too.
    const timeoutMs = Math.min(msToNumber(policies.sendTimeout), policies.working ? msToNumber(policies.working.after) : Infinity, untilDeadline(policies.total, this.overall) ?? Infinity);
    // An agent that never answers is told to a person by the send itself (no timer, no event).
    const unanswered = { afterMs: msToNumber(policies.watch.unreachableAfter), alert: this.alerts.of('unanswered', 0, 0, undefined, `${agent.name} has not answered the first message (${messageId})`) };
    // How an approval's watch would hold the task: a streamed send subscribes for it and posts the first round's alert (activities/early-subscriptions.ts).
    const watch = { mode: policies.watch.mode, idleTimeoutMs: Math.min(msToNumber(policies.watch.idleTimeout), msToNumber(policies.watch.firstLease)), push: policies.watch.push, alert: { ...this.alerts.of('auth', 1, 0, undefined, undefined), round: 1 } };
    // The first question's alert and report go out with the send, not in local activities after it (answerQuestion numbers it this.turn + 1).
    const firstTurn = this.turn + 1;
    const request = { agent, messageId, message, timeoutMs, unanswered, watch, questionAlert: this.alerts.of('input', firstTurn, 0, undefined, undefined), questionReport: this.publisher.questionReport(this, firstTurn) };
    let sent = await followedSend((first) => this.sends.sendFirst(first), request);
    this.publisher.afterSend(request.questionReport, sent.questionReported);
    while (sent.unresolved) {
      // Never resend blindly: by default an operator decides (resend, or adopt the task the agent made).
      let resolution: SendResolution = { action: 'resend' };
      if (policies.onAmbiguousSend === 'ask') {
        this.unresolvedSend = `The reply to the first message (${messageId}) was lost and ${agent.name} cannot tell whether it got it: ${sent.unresolved.reason}. Resend it, or adopt the task the agent made of it (planner resolve).`;
        this.publish();
        this.alerts.send('unresolved', 0, 0, this.task.taskId, this.unresolvedSend);
        await condition(() => this.resolution !== undefined);
        resolution = this.resolution!;
        this.resolution = undefined;
      }
      sent = await followedSend((first) => this.sends.sendFirst(first), { ...request, resolution: resolution.action === 'resend' ? 'resend' : { adoptTaskId: resolution.taskId } });
      this.unresolvedSend = undefined;
    }
    if (sent.message) return { kind: 'message', artifacts: [], message: sent.message, text: sent.text };
    if (sent.observation) this.task.apply(sent.observation);
    if (sent.questionAlerted) this.inputAlerted = firstTurn; // the send posted it: answerQuestion does not
    if (sent.observation?.alerted !== undefined) this.authAlerted = sent.observation.alerted; // and the watch does not
    return undefined;
  }

  /** INPUT_REQUIRED: publish the question, alert, wait for an answer (or a deadline), send it. */
  async answerQuestion(): Promise<void> {
    const { agent, policies } = this.input;
    if (!this.questionIsCurrent()) {
      this.turn++;
      this.question = { turn: this.turn, timestamp: this.task.timestamp, text: this.task.text };
    }
    const question = this.question!;
    const wait = this.beginWait(`input:${question.turn}`);
    this.publish(); // the question is published with its turn: from here on it takes answers
    if (this.inputAlerted < question.turn) {
      this.inputAlerted = question.turn;
      this.alert('input', question.turn, 0);
    }
    // Nothing is held while a human thinks; a slow GetTask notices a task that ended at the agent.
    while (!this.pendingAnswer && this.questionIsCurrent()) {
      if (this.historyFull()) return;
      const pollMs = inputPollMs(policies.watch, wait);
      const deadline = nearer(untilDeadline(policies.input, wait), untilDeadline(policies.total, this.overall));
      const sleep = deadline === undefined ? pollMs : Math.min(pollMs, deadline);
      if (await condition(() => this.pendingAnswer !== undefined || !this.questionIsCurrent() || this.historyFull(), sleep)) continue;
      if (await this.totalDue()) continue;
      if (policies.input && untilDeadline(policies.input, wait)! <= 1) await actOnDeadline(this, policies.input, 'input', question.turn, wait);
      else this.task.apply(await this.calls.getRemoteTask({ agent, taskId: this.task.taskId! }));
    }
    const answer = this.pendingAnswer;
    if (!answer) return; // the task moved on by itself (e.g. cancelled remotely)
    const sent = await this.sends.sendAnswer({
      agent,
      messageId: `${this.workflowId}/${this.chain}/${answer.turn}`,
      message: { text: answer.text, data: answer.data },
      taskId: this.task.taskId,
      contextId: this.task.contextId,
      question: { timestamp: question.timestamp, text: question.text },
      timeoutMs: msToNumber(policies.sendTimeout),
    });
    if (sent.observation) this.task.apply(sent.observation);
    this.replies.set(answer.turn, { turn: answer.turn, state: this.task.state!, text: this.task.text });
    this.pendingAnswer = undefined;
  }

  /** AUTH_REQUIRED: watch first, alert second (the watch posts the alert, unless the first send did), then wait for the state to move. */
  async awaitApproval(): Promise<void> {
    const { agent, policies } = this.input;
    const round = this.task.authEntries;
    if (round > policies.maxAuthRounds) {
      await this.cancelRemote();
      throw authRoundsExceeded(agent.name, this.task.taskId, round, policies.maxAuthRounds);
    }
    const wait = this.beginWait(`auth:${round}`);
    this.publish();
    const stillWaiting = (): boolean => this.task.state === 'TASK_STATE_AUTH_REQUIRED' && this.task.authEntries === round;
    while (stillWaiting() && !this.historyFull()) {
      // Parked on push or on a worker's shared watch (the lease looked and alerted): nothing held, a backstop poll.
      const parked = this.parkedRound === round;
      // Subscribe first, alert second: the watch posts this round's alert after its first look.
      if (!parked && (this.watch?.round !== round || this.watch.done)) {
        await this.watch?.stop();
        this.startWatch(round);
      }
      const watch = this.watch!;
      const shown = this.shown;
      const deadline = nearer(untilDeadline(policies.auth, wait), untilDeadline(policies.total, this.overall));
      const backstop = parked ? backstopPollMs(policies.watch, wait) : undefined;
      const woke = await waitFor(() => !stillWaiting() || (parked ? this.parkedRound !== round : watch.done) || this.shown !== shown || this.historyFull(), nearer(deadline, backstop));
      if (watch.error) throw watch.error;
      this.publish();
      if (woke || (await this.totalDue())) continue;
      if (policies.auth && untilDeadline(policies.auth, wait)! <= 1) await actOnDeadline(this, policies.auth, 'auth', round, wait);
      else if (parked) this.task.apply(await this.calls.getRemoteTask({ agent, taskId: this.task.taskId! }));
    }
  }

  /** SUBMITTED / WORKING: watch until the task needs us. */
  async awaitProgress(): Promise<void> {
    this.beginWait(`progress:${this.task.state}`);
    // A running watch of this task serves the progress wait too, the approval round's included (the
    // patch is asked only then, so a task without that case records no marker).
    const [wait, policy] = [this.wait!, this.input.policies.working];
    if (!this.watch || this.watch.done || (this.watch.round !== undefined && !hasPatch(KEEP_WATCH_PATCH))) {
      await this.watch?.stop();
      // Its lease ends by the working (or whole-task) deadline: no timer.
      this.startWatch(undefined, nearer(untilDeadline(policy, wait), untilDeadline(this.input.policies.total, this.overall)));
    }
    const [watch, version, shown] = [this.watch!, this.task.version, this.shown];
    await condition(() => this.task.version !== version || this.shown !== shown || watch.done || this.historyFull());
    if (watch.error) throw watch.error;
    if (await this.totalDue()) return;
    if (policy && untilDeadline(policy, wait)! <= 1 && hasPatch(WORKING_DEADLINE_PATCH)) await actOnDeadline(this, policy, 'working', wait.since, wait);
  }

  /** The whole task's deadline (policies.total), when it is due: its policy acts; true when it did. */
  private async totalDue(): Promise<boolean> {
    const policy = this.input.policies.total;
    if (!policy || untilDeadline(policy, this.overall)! > 1) return false;
    await actOnDeadline(this, policy, 'total', 0, this.overall);
    return true;
  }

  // ---- The run's edges: continue-as-new, cancellation, the end ----
  historyFull(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= this.input.policies.historyBudget;
  }

  /** Readies the hand-over to a fresh run; false when an answer arrived meanwhile and must be sent first. */
  async readyToContinueAsNew(): Promise<boolean> {
    await this.watch?.stop();
    await this.alerts.settled();
    await condition(() => !this.publisher.reporting && (allHandlersFinished() || this.pendingAnswer !== undefined || this.resolution !== undefined));
    return !(this.pendingAnswer || this.resolution);
  }

  /** Sends CancelTask to the agent (once the task exists and while it runs), whatever cancels this scope. */
  async cancelRemote(): Promise<void> {
    if (!this.task.taskId || this.task.terminal) return;
    const reply = await CancellationScope.nonCancellable(() => this.calls.cancelRemoteTask({ agent: this.input.agent, taskId: this.task.taskId! }));
    if (reply) this.task.apply(reply);
    // The run is cancelled, so a report needs a scope of its own; it reaches the plan before the run ends.
    if (!hasPatch(CANCEL_FOLLOWS_SEND_PATCH)) return this.publish();
    await CancellationScope.nonCancellable(() => (this.publish(), this.publisher.reported()));
  }

  /** The remote task was cancelled by someone else: a workflow may not cancel itself, so an activity asks the server. */
  cancelThisRun(): Promise<void> {
    return this.calls.cancelWorkflowRun({ workflowId: this.workflowId, runId: this.runId, reason: `${this.input.agent.name} cancelled task ${this.task.taskId}` });
  }

  /** The run is ending: handlers still waiting give up with this reason. */
  close(reason: string): void {
    this.closing = reason;
  }

  /** The task is over: release the watch's slot and the agent's push config. */
  async release(): Promise<void> {
    this.watch?.cancel();
    if (this.pushConfigId && this.task.taskId) {
      const configId = this.pushConfigId;
      this.pushConfigId = undefined;
      try {
        await CancellationScope.nonCancellable(() => this.calls.deletePush({ agent: this.input.agent, taskId: this.task.taskId!, configId }));
      } catch (err) {
        log.warn('push config left at the agent', { configId, error: String(err) });
      }
    }
  }

  publish(): void {
    this.publisher.publish(this);
  }

  waitingOn(): DelegatedTaskStatus['waitingOn'] {
    if (this.unresolvedSend !== undefined) return 'operator';
    if (this.task.state === 'TASK_STATE_INPUT_REQUIRED') return this.questionIsCurrent() ? 'human' : 'agent';
    return this.task.waitingOn();
  }

  private questionIsCurrent(): boolean {
    return this.question !== undefined && this.task.asks(this.question);
  }

  private answerable(): AnswerableView {
    const question = this.question && { turn: this.question.turn, current: this.questionIsCurrent() };
    return { state: this.task.state, ...(question ? { question } : {}), answering: this.pendingAnswer !== undefined };
  }

  private beginWait(key: string): Wait {
    if (this.wait?.key !== key) this.wait = { key, since: Date.now(), reminders: 0, leases: 0 };
    return this.wait;
  }

  /** Starts a watch lease of this wait: the first one heartbeats fast; an approval round's posts its alert. */
  private startWatch(round?: number, endByMs?: number): void {
    const wait = this.wait;
    const fast = !wait || wait.leases === 0;
    if (wait) wait.leases++;
    const id = `${this.chain}/watch-${++this.watchSeq}`;
    const sendAlert = round !== undefined && round > this.authAlerted;
    const known = { state: this.task.state, timestamp: this.task.timestamp, text: this.task.text, artifacts: artifactKey(this.task.artifactList) };
    const alert = sendAlert ? { ...this.alerts.of('auth', round, 0, this.task.taskId, this.task.text), round } : undefined;
    const request = { agent: this.input.agent, taskId: this.task.taskId!, known, alert, pushConfigId: this.pushConfigId, parkOnPush: round !== undefined, endByMs };
    this.watch = this.leases.start(id, round, fast, request, (result) => this.takeWatchResult(result, round));
  }

  private takeWatchResult(result: WatchResult, round: number | undefined): void {
    if (result.reason === 'parked') this.parkedRound = round;
    if (result.observation) this.task.apply(result.observation);
    if (result.alerted !== undefined) this.authAlerted = Math.max(this.authAlerted, result.alerted);
    if (result.pushConfigId) this.pushConfigId = result.pushConfigId;
  }

  /** An alert quoting the agent's words (the question, the approval request). */
  alert(kind: AlertKind, round: number, nth: number): void {
    this.alerts.send(kind, round, nth, this.task.taskId, this.task.text);
  }
}
