// DelegatedTaskWorkflow: one remote A2A task, tracked from the first message to a terminal state,
// through questions (INPUT_REQUIRED) and out-of-band approvals (AUTH_REQUIRED), for as long as it
// takes: the run continues as new before its history grows large, carrying what it knows.
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  type DeadlinePolicy,
  type DelegatedTask,
  type DelegatedTaskInput,
  type DelegatedTaskResult,
} from './input';
import { checkDelegatedTaskInput } from './check';
import {
  type Answer,
  type AnswerResult,
  type DelegatedTaskStatus,
  type Observation,
  type SendResolution,
  type WatchProblem,
  answerSignal,
  answerUpdate,
  observeSignal,
  resolveSendUpdate,
  statusQuery,
} from './messages';
import { RemoteTask, artifactKey } from './remote-task';
import { Alerts, type AlertKind } from './alerts';
import { sendCalls, shortCalls } from './calls';
import type { DelegatedTaskCarry, Question, Wait } from './carry';
import { untilDeadline, waitFor } from './deadlines';
import { authRoundsExceeded, deadlineExceeded, taskOutcome, withTypedCause } from './outcome';
import { Publisher } from './publish';
import { WatchLease, WatchLeases } from './watch';
import { legacyDelegatedTask } from './v1/delegated-task';

/** Histories begun before this marker run the frozen v1 code (workflows/delegated-task/v1/). */
export const V2_PATCH = 'delegated-task-v2';
/**
 * The watch of an approval round is kept through AUTH_REQUIRED → WORKING: restarting it dropped the
 * terminal state it may already hold and cost a new subscription and ~12 history events per approval.
 */
export const KEEP_WATCH_PATCH = 'keep-watch-after-approval';

export type { DelegatedTaskCarry } from './carry';

/** The workflow's state, with the handlers that read and change it. */
class Delegation {
  readonly task: RemoteTask;
  // What a run hands the next (DelegatedTaskCarry), fresh values for the first run.
  turn = 0;
  question?: Question;
  wait?: Wait;
  authAlerted = 0;
  inputAlerted = 0;
  pushConfigId?: string;
  watchSeq = 0;
  problem?: WatchProblem;
  runs = 0;
  // This run's own.
  watch?: WatchLease;
  pendingAnswer?: Answer & { turn: number };
  readonly replies = new Map<number, AnswerResult>();
  unresolvedSend?: string;
  resolution?: SendResolution;
  /** Set when the run is ending (e.g. `cancelled`): handlers still waiting give up with that reason. */
  closing?: string;
  /** Bumped when something the inbox shows changes without a status change (a watch problem). */
  shown = 0;

  constructor(
    readonly input: DelegatedTask,
    carry: DelegatedTaskCarry | undefined,
  ) {
    const { task, ...carried } = carry ?? { task: undefined };
    this.task = task ? RemoteTask.from(task) : new RemoteTask();
    Object.assign(this, carried);
  }

  carry(): DelegatedTaskCarry {
    return {
      task: this.task.snapshot(),
      turn: this.turn,
      question: this.question,
      wait: this.wait,
      authAlerted: this.authAlerted,
      inputAlerted: this.inputAlerted,
      pushConfigId: this.pushConfigId,
      watchSeq: this.watchSeq,
      problem: this.problem,
      runs: this.runs + 1,
    };
  }

  register(): void {
    setHandler(statusQuery, () => this.status());
    setHandler(observeSignal, (o) => this.observe(o), { description: 'An observation of the remote task (watch, push receiver).' });
    setHandler(
      answerUpdate,
      async (a) => {
        const turn = this.question!.turn; // the validator checked that this question is published
        this.pendingAnswer = { ...a, turn };
        await condition(() => this.replies.has(turn) || this.task.terminal || this.closing !== undefined);
        const reply = this.replies.get(turn);
        if (reply) return reply;
        const ended = this.task.terminal ? `ended ${this.task.state}` : `was ${this.closing ?? 'closed'}`;
        throw ApplicationFailure.create({
          type: 'TaskEnded',
          message: `${this.input.agent.name} task ${this.task.taskId} ${ended} before the answer to question ${turn} was sent`,
        });
      },
      {
        validator: (a) => {
          const why = this.whyNotAnswerable(a);
          if (why) throw new Error(`answer rejected: ${why}`);
        },
        description: 'Answer the question the agent asked (INPUT_REQUIRED); returns the agent state after it.',
      },
    );
    setHandler(
      answerSignal,
      (a) => {
        const why = this.whyNotAnswerable(a);
        if (why) log.warn('answer signal ignored', { reason: why });
        else this.pendingAnswer = { ...a, turn: this.question!.turn };
      },
      { description: 'Answer the current question (fire-and-forget; for the Temporal UI). Prefer the update.' },
    );
    setHandler(
      resolveSendUpdate,
      async (r) => {
        this.resolution = r;
        await condition(() => this.unresolvedSend === undefined);
        return this.status();
      },
      {
        validator: (r) => {
          if (this.unresolvedSend === undefined) throw new Error('resolve rejected: no send is waiting for a decision');
          if (r.action !== 'resend' && r.action !== 'adopt') throw new Error(`resolve rejected: action ${JSON.stringify((r as { action?: unknown }).action)} is neither "resend" nor "adopt"`);
          if (r.action === 'adopt' && (typeof r.taskId !== 'string' || r.taskId === '')) throw new Error('resolve rejected: adopt needs the remote taskId');
        },
        description: 'Settle a first message whose reply was lost: resend it, or adopt the task the agent made of it.',
      },
    );
  }

  status(): DelegatedTaskStatus {
    return {
      agent: this.input.agent.name,
      planId: this.input.planId,
      ...(this.input.stepId ? { stepId: this.input.stepId } : {}),
      taskId: this.task.taskId,
      contextId: this.task.contextId,
      state: this.task.state,
      waitingOn: this.waitingOn(),
      text: this.unresolvedSend ?? this.task.text,
      // A question counts once it is published: an answer binds to the turn shown here.
      turn: this.question?.turn ?? this.turn,
      authRounds: this.task.authEntries,
      lastUpdate: this.task.timestamp,
      ...(this.problem ? { watchProblem: this.problem } : {}),
      ...(this.unresolvedSend ? { unresolvedSend: this.unresolvedSend } : {}),
      continuedAsNew: this.runs,
    };
  }

  waitingOn(): DelegatedTaskStatus['waitingOn'] {
    if (this.unresolvedSend !== undefined) return 'operator';
    if (this.task.state === 'TASK_STATE_INPUT_REQUIRED') return this.questionIsCurrent() ? 'human' : 'none';
    return this.task.waitingOn();
  }

  questionIsCurrent(): boolean {
    const q = this.question;
    return q !== undefined && this.task.state === 'TASK_STATE_INPUT_REQUIRED' && this.task.timestamp === q.timestamp;
  }

  private observe(o: Observation): void {
    // A watch of an earlier lease, run or workflow (a reused id) has nothing to say to this one.
    if (o.watchId !== undefined && o.watchId !== this.watch?.id) return;
    this.task.apply(o);
    if (o.alerted !== undefined) this.authAlerted = Math.max(this.authAlerted, o.alerted);
    if (o.pushConfigId !== undefined) this.pushConfigId = o.pushConfigId;
    if (o.problem !== undefined) {
      this.problem = o.problem ?? undefined;
      this.shown++;
    }
  }

  private whyNotAnswerable(a: Answer): string | undefined {
    const q = this.question;
    if (this.task.state !== 'TASK_STATE_INPUT_REQUIRED') return `the task is not waiting for input (state ${this.task.state ?? 'unknown'})`;
    if (!q) return 'the agent is asking a question that is not published yet; read it (planner status) and answer that';
    if (!this.questionIsCurrent()) return `the agent has asked something new since question ${q.turn}; read it (planner status) and answer that`;
    if (this.pendingAnswer) return `question ${q.turn} already has an answer being sent`;
    if (a.turn !== undefined && a.turn !== q.turn) return `the answer names turn ${a.turn}, but the current question is turn ${q.turn}`;
    if ((a.text === undefined || a.text.trim() === '') && a.data === undefined) return 'an answer needs text or data';
    return undefined;
  }
}

export async function DelegatedTaskWorkflow(raw: DelegatedTaskInput, carry?: DelegatedTaskCarry): Promise<DelegatedTaskResult> {
  // Runs begun on the first release keep its code, so their histories replay unchanged.
  if (!patched(V2_PATCH)) return legacyDelegatedTask(raw);
  const input = parseInput(raw);
  const { agent, policies } = input;
  const wf = workflowInfo();
  // Ids are scoped to this execution chain: a reused workflow id never meets the previous chain's task,
  // alerts or watches, and a run continued as new keeps the ids of its chain.
  const chain = wf.firstExecutionRunId;
  const s = new Delegation(input, carry);
  s.register(); // before the first await: an update in the first activation must find its handler

  const sender = sendCalls(policies);
  const calls = shortCalls();
  const w = policies.watch;
  const leases = new WatchLeases(wf.taskQueue, w);

  // Search attributes and UI details follow the remote state: the inbox is a visibility query.
  const publisher = new Publisher(input, wf.parent?.workflowId);
  const publish = (): void => publisher.publish(s);

  const alerts = new Alerts(calls, input, wf.workflowId, chain);
  const alert = (kind: AlertKind, round: number, nth: number): void => alerts.send(kind, round, nth, s.task.taskId, kind === 'unresolved' ? s.unresolvedSend : s.task.text);

  const historyFull = (): boolean => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= policies.historyBudget;
  };

  const beginWait = (key: string): Wait => {
    if (s.wait?.key !== key) s.wait = { key, since: Date.now(), reminders: 0, leases: 0 };
    return s.wait;
  };

  const startWatch = (round?: number): WatchLease => {
    const wait = s.wait;
    const fast = !wait || wait.leases === 0;
    if (wait) wait.leases++;
    const id = `${chain}/watch-${++s.watchSeq}`;
    const sendAlert = round !== undefined && round > s.authAlerted;
    const known = { state: s.task.state, timestamp: s.task.timestamp, text: s.task.text, artifacts: artifactKey(s.task.artifactList) };
    const alert = sendAlert ? { ...alerts.of('auth', round, 0, s.task.taskId, s.task.text), round } : undefined;
    const request = { agent, taskId: s.task.taskId!, known, alert, pushConfigId: s.pushConfigId };
    const watch = leases.start(id, round, fast, request, (r) => {
      if (r.observation) s.task.apply(r.observation);
      if (r.alerted !== undefined) s.authAlerted = Math.max(s.authAlerted, r.alerted);
      if (r.pushConfigId) s.pushConfigId = r.pushConfigId;
    });
    s.watch = watch;
    return watch;
  };

  const stopWatch = async (): Promise<void> => s.watch?.stop();

  const onDeadline = async (policy: DeadlinePolicy, kind: 'input' | 'auth', round: number, wait: Wait): Promise<void> => {
    switch (policy.onDeadline) {
      case 'remind':
        wait.reminders++;
        alert(kind, round, wait.reminders);
        return;
      case 'fail':
        throw deadlineExceeded(policy, kind, agent.name, s.task.taskId);
      case 'cancel':
        await cancelRemote();
        throw deadlineExceeded(policy, kind, agent.name, s.task.taskId, { state: s.task.state });
    }
  };

  const cancelRemote = async (): Promise<void> => {
    if (!s.task.taskId || s.task.terminal) return;
    const reply = await CancellationScope.nonCancellable(() => calls.cancelRemoteTask({ agent, taskId: s.task.taskId! }));
    if (reply) s.task.apply(reply);
    publish();
  };

  const sendFirst = async (): Promise<DelegatedTaskResult | undefined> => {
    const messageId = `${wf.workflowId}/${chain}/0`;
    const timeoutMs = msToNumber(policies.sendTimeout);
    let sent = await sender.sendMessage({ agent, messageId, message: input.message, timeoutMs });
    while (sent.unresolved) {
      // Never resend blindly: by default an operator decides (resend, or adopt the task the agent made).
      let resolution: SendResolution = { action: 'resend' };
      if (policies.onAmbiguousSend === 'ask') {
        s.unresolvedSend = `The reply to the first message (${messageId}) was lost and ${agent.name} cannot tell whether it got it: ${sent.unresolved.reason}. Resend it, or adopt the task the agent made of it (planner resolve).`;
        publish();
        alert('unresolved', 0, 0);
        await condition(() => s.resolution !== undefined);
        resolution = s.resolution!;
        s.resolution = undefined;
      }
      sent = await sender.sendMessage({
        agent,
        messageId,
        message: input.message,
        timeoutMs,
        resolution: resolution.action === 'resend' ? 'resend' : { adoptTaskId: resolution.taskId },
      });
      s.unresolvedSend = undefined;
    }
    if (sent.message) return { kind: 'message', artifacts: [], message: sent.message, text: sent.text };
    if (sent.observation) s.task.apply(sent.observation);
    return undefined;
  };

  const answerQuestion = async (): Promise<void> => {
    if (!s.questionIsCurrent()) {
      s.turn++;
      s.question = { turn: s.turn, timestamp: s.task.timestamp, text: s.task.text };
    }
    const q = s.question!;
    const wait = beginWait(`input:${q.turn}`);
    publish(); // the question is published with its turn: from here on it takes answers
    if (s.inputAlerted < q.turn) {
      s.inputAlerted = q.turn;
      alert('input', q.turn, 0);
    }
    // Nothing is held while a human thinks; a slow GetTask notices a task that ended at the agent.
    const pollMs = msToNumber(w.inputPoll);
    while (!s.pendingAnswer && s.questionIsCurrent()) {
      if (historyFull()) return;
      const deadline = untilDeadline(policies.input, wait);
      const sleep = deadline === undefined ? pollMs : Math.min(pollMs, deadline);
      if (await condition(() => s.pendingAnswer !== undefined || !s.questionIsCurrent() || historyFull(), sleep)) continue;
      if (policies.input && untilDeadline(policies.input, wait)! <= 1) await onDeadline(policies.input, 'input', q.turn, wait);
      else s.task.apply(await calls.getRemoteTask({ agent, taskId: s.task.taskId! }));
    }
    const answer = s.pendingAnswer;
    if (!answer) return; // the task moved on by itself (e.g. cancelled remotely)
    const sent = await sender.sendMessage({
      agent,
      messageId: `${wf.workflowId}/${chain}/${answer.turn}`,
      message: { text: answer.text, data: answer.data },
      taskId: s.task.taskId,
      contextId: s.task.contextId,
      question: { timestamp: q.timestamp, text: q.text },
      timeoutMs: msToNumber(policies.sendTimeout),
    });
    if (sent.observation) s.task.apply(sent.observation);
    s.replies.set(answer.turn, { turn: answer.turn, state: s.task.state!, text: s.task.text });
    s.pendingAnswer = undefined;
  };

  const awaitApproval = async (): Promise<void> => {
    const round = s.task.authEntries;
    if (round > policies.maxAuthRounds) {
      await cancelRemote();
      throw authRoundsExceeded(agent.name, s.task.taskId, round, policies.maxAuthRounds);
    }
    const wait = beginWait(`auth:${round}`);
    publish();
    const stillWaiting = (): boolean => s.task.state === 'TASK_STATE_AUTH_REQUIRED' && s.task.authEntries === round;
    while (stillWaiting() && !historyFull()) {
      // Subscribe first, alert second: the watch posts this round's alert after its first look.
      if (s.watch?.round !== round || s.watch.done) {
        await stopWatch();
        startWatch(round);
      }
      const watch = s.watch!;
      const shown = s.shown;
      const deadline = untilDeadline(policies.auth, wait);
      const woke = await waitFor(() => !stillWaiting() || watch.done || s.shown !== shown || historyFull(), deadline);
      if (watch.error) throw watch.error;
      publish();
      if (!woke && policies.auth) await onDeadline(policies.auth, 'auth', round, wait);
    }
  };

  /** SUBMITTED / WORKING: watch until the task needs us. */
  const awaitProgress = async (): Promise<void> => {
    beginWait(`progress:${s.task.state}`);
    // A running watch of this task serves the progress wait too, the approval round's included (the
    // patch is asked only then, so a task without that case records no marker).
    if (!s.watch || s.watch.done || (s.watch.round !== undefined && !patched(KEEP_WATCH_PATCH))) {
      await stopWatch();
      startWatch();
    }
    const watch = s.watch!;
    const v = s.task.version;
    const shown = s.shown;
    await condition(() => s.task.version !== v || s.shown !== shown || watch.done || historyFull());
    if (watch.error) throw watch.error;
  };

  /** Hands the wait to a fresh run; false when an answer arrived meanwhile and must be sent first. */
  const continueAsNewNow = async (): Promise<boolean> => {
    await stopWatch();
    await alerts.settled();
    await condition(() => allHandlersFinished() || s.pendingAnswer !== undefined || s.resolution !== undefined);
    if (s.pendingAnswer || s.resolution) return false;
    log.info('continuing as new', { historyLength: workflowInfo().historyLength, runs: s.runs + 1 });
    return continueAsNew<typeof DelegatedTaskWorkflow>(input, s.carry());
  };

  let continuing = false;
  try {
    if (!carry) {
      const reply = await sendFirst();
      if (reply) return reply;
    }
    while (!s.task.terminal) {
      if (historyFull() && !s.pendingAnswer) {
        continuing = true;
        if (await continueAsNewNow()) return undefined as never;
        continuing = false;
      }
      if (s.task.state === 'TASK_STATE_INPUT_REQUIRED') await answerQuestion();
      else if (s.task.state === 'TASK_STATE_AUTH_REQUIRED') await awaitApproval();
      else await awaitProgress();
      publish();
    }
    publish();
    if (s.task.state === 'TASK_STATE_CANCELED') {
      // Cancelled at the agent by someone else: record this run as cancelled too. A workflow may
      // not cancel itself, so an activity asks the server; the request comes back as this run's
      // own cancellation, which the catch below completes.
      await calls.cancelWorkflowRun({ workflowId: wf.workflowId, runId: wf.runId, reason: `${agent.name} cancelled task ${s.task.taskId}` });
      await condition(() => false);
    }
    const result = taskOutcome(agent.name, s.task);
    await condition(allHandlersFinished); // an answer being sent gets its reply before the run ends
    return result;
  } catch (err) {
    if (isCancellation(err)) {
      await cancelRemote();
      log.info('workflow cancelled; remote task cancelled', { taskId: s.task.taskId, state: s.task.state });
    }
    if (!continuing) {
      // Every update gets its answer (a reply or the reason) before the run closes.
      s.closing = isCancellation(err) ? 'cancelled' : 'failed';
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    }
    throw withTypedCause(err, agent.name, s.task.taskId);
  } finally {
    if (!continuing) await stopWatching();
  }

  // The task is over: release the watch's slot and the agent's push config.
  async function stopWatching(): Promise<void> {
    s.watch?.cancel();
    if (s.pushConfigId && s.task.taskId) {
      const configId = s.pushConfigId;
      s.pushConfigId = undefined;
      try {
        await CancellationScope.nonCancellable(() => calls.deletePush({ agent, taskId: s.task.taskId!, configId }));
      } catch (err) {
        log.warn('push config left at the agent', { configId, error: String(err) });
      }
    }
  }
}

function parseInput(raw: DelegatedTaskInput): DelegatedTask {
  const checked = checkDelegatedTaskInput(raw);
  if (!checked.ok) {
    throw ApplicationFailure.create({
      type: 'InvalidInput',
      nonRetryable: true,
      message: `invalid DelegatedTaskWorkflow input: ${checked.problem}`,
    });
  }
  return checked.task;
}
