// FROZEN: the state and the steps of DelegatedTaskWorkflow as first released (v1), used only by
// legacyDelegatedTask (delegated-task.ts) to replay and finish runs begun before the
// `delegated-task-v2` patch. Restructured without behaviour change on 2026-12-03 (the project's rule
// that no workflow function body is longer than 120 lines): each closure of the old function body is
// a method here, each of its `let`s a field, with the same statements in the same order. Never change
// what it does; delete it with delegated-task.ts once no v1 run is open and no v1 fixture is kept.
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityInterfaceFor,
  type WorkflowInfo,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import type { PlannerActivities, SendOutcome } from '../../../activities';
import type { DelegatedTask, DeadlinePolicy } from '../input';
import type { Answer, AnswerResult, DelegatedTaskStatus, Observation } from '../messages';
import { RemoteTask } from './remote-task';
import { A2aAgent, A2aTaskId, A2aTaskState, PlanId, PlannerWaitingOn, fitted } from '../../search-attributes';

type Acts = PlannerActivities;

export interface Watch {
  id: string;
  scope: CancellationScope;
  established: boolean;
  done: boolean;
  error?: unknown;
}

export function throwIfFailed(watch: Watch): void {
  if (watch.error) throw watch.error;
}

export class LegacyDelegation {
  readonly task = new RemoteTask();
  private turn = 0; // the current question turn
  private pendingAnswer: Answer | undefined;
  private readonly replies = new Map<number, AnswerResult>();
  private watch: Watch | undefined;
  private watchSeq = 0;
  private pushConfigId: string | undefined;
  private published = '';
  private pushAsked = false;

  private readonly info: WorkflowInfo;
  private readonly sender: ActivityInterfaceFor<Acts>;
  private readonly calls: ActivityInterfaceFor<Acts>;
  private readonly watcher: ActivityInterfaceFor<Acts>;

  constructor(readonly input: DelegatedTask) {
    const { policies } = input;
    this.info = workflowInfo();
    // A blocking SendMessage may take as long as the agent needs to reach an interrupted state.
    this.sender = proxyActivities<Acts>({
      startToCloseTimeout: addMs(policies.sendTimeout, 30_000),
      heartbeatTimeout: '30s',
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
    });
    // Short calls: alerts, CancelTask, push configs, the run's own cancellation.
    this.calls = proxyActivities<Acts>({
      startToCloseTimeout: '30s',
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 20 },
    });
    this.watcher = proxyActivities<Acts>({
      taskQueue: `${this.info.taskQueue}-watch`,
      startToCloseTimeout: '3650d', // bounded by heartbeats, not by a clock: a wait may last weeks
      heartbeatTimeout: policies.watch.heartbeatTimeout,
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
    });
  }

  // The handlers' bodies (legacyDelegatedTask registers them).

  status(): DelegatedTaskStatus {
    const { task } = this;
    return {
      agent: this.input.agent.name,
      planId: this.input.planId,
      taskId: task.taskId,
      contextId: task.contextId,
      state: task.state,
      waitingOn: task.waitingOn(),
      text: task.text,
      turn: this.turn,
      authRounds: task.authEntries,
      lastUpdate: task.timestamp,
    };
  }

  observe(observation: Observation): void {
    if (this.watch && observation.watchId === this.watch.id && observation.first) this.watch.established = true;
    this.task.apply(observation);
  }

  async deliverAnswer(answer: Answer): Promise<AnswerResult> {
    const myTurn = this.turn;
    this.pendingAnswer = answer;
    await condition(() => this.replies.has(myTurn));
    return this.replies.get(myTurn)!;
  }

  validateAnswer(answer: Answer): void {
    const why = this.canAnswer(answer);
    if (why) throw new Error(`answer rejected: ${why}`);
  }

  takeSignalledAnswer(answer: Answer): void {
    const why = this.canAnswer(answer);
    if (why) log.warn('answer signal ignored', { reason: why });
    else this.pendingAnswer = answer;
  }

  private canAnswer(answer: Answer): string | undefined {
    const { task, turn } = this;
    if (task.state !== 'TASK_STATE_INPUT_REQUIRED') return `the task is not waiting for input (state ${task.state ?? 'unknown'})`;
    if (this.pendingAnswer) return `question ${turn} already has an answer being sent`;
    if (answer.turn !== undefined && answer.turn !== turn) return `the answer names turn ${answer.turn}, but the current question is turn ${turn}`;
    if ((answer.text === undefined || answer.text.trim() === '') && answer.data === undefined) return 'an answer needs text or data';
    return undefined;
  }

  // The steps of the main loop.

  /** The first message. Returns the activity's own promise: no async layer between it and the caller's await. */
  sendFirst(): Promise<SendOutcome> {
    return this.sender.sendMessage({
      agent: this.input.agent,
      messageId: `${this.info.workflowId}/0`,
      message: this.input.message,
      timeoutMs: msToNumber(this.input.policies.sendTimeout),
    });
  }

  /** Asks the server to cancel this run. Returns the activity's own promise, like sendFirst. */
  cancelThisRun(): Promise<void> {
    return this.calls.cancelWorkflowRun({
      workflowId: this.info.workflowId,
      runId: this.info.runId,
      reason: `${this.input.agent.name} cancelled task ${this.task.taskId}`,
    });
  }

  // Search attributes and UI details follow the remote state: the inbox is a visibility query.
  publish(): void {
    const { task, input } = this;
    const waitingOn = task.waitingOn();
    const details = describeWait(input.agent.name, task, waitingOn, this.turn);
    if (details === this.published) return; // nothing new: no commands, no history events
    this.published = details;
    upsertSearchAttributes(fitted([
      { key: A2aAgent, value: input.agent.name },
      ...(input.planId ? [{ key: PlanId, value: input.planId }] : []),
      ...(task.taskId ? [{ key: A2aTaskId, value: task.taskId }] : []),
      ...(task.state ? [{ key: A2aTaskState, value: task.state }] : []),
      { key: PlannerWaitingOn, value: waitingOn },
    ]));
    setCurrentDetails(details);
  }

  private alert(kind: 'input' | 'auth', round: number, nth: number): Promise<void> {
    const { workflowId } = this.info;
    return this.calls.alertOperator({
      kind,
      workflowId,
      planId: this.input.planId,
      agent: this.input.agent.name,
      taskId: this.task.taskId ?? '',
      text: this.task.text ?? '',
      idempotencyKey: `${workflowId}:${kind}:${round}:${nth}`,
    });
  }

  async startWatch(): Promise<Watch> {
    const { task, input } = this;
    const { agent, policies } = input;
    if (this.watch && !this.watch.done) return this.watch;
    if (policies.watch.push && !this.pushAsked) {
      this.pushAsked = true;
      this.pushConfigId = await this.calls.registerPush({ agent, taskId: task.taskId! });
    }
    const scope = new CancellationScope();
    const watch: Watch = { id: `watch-${++this.watchSeq}`, established: false, done: false, scope };
    this.watch = watch;
    const baseline = { state: task.state, timestamp: task.timestamp };
    const push = this.pushConfigId !== undefined;
    void scope.run(() =>
      this.watcher.watchTask({ agent, taskId: task.taskId!, watchId: watch.id, baseline, policy: policies.watch, push }),
    ).then(
      (last) => {
        watch.done = true;
        if (last) task.apply(last);
      },
      (err: unknown) => {
        watch.done = true;
        if (!isCancellation(err)) watch.error = err;
      },
    );
    return watch;
  }

  /** Waits for `done`, applying a deadline policy; `remind` re-alerts and keeps waiting. */
  private async waitWithDeadline(
    done: () => boolean,
    policy: DeadlinePolicy | undefined,
    kind: 'input' | 'auth',
    round: number,
  ): Promise<void> {
    if (!policy) return condition(done);
    if (await condition(done, policy.after)) return;
    const what = kind === 'input' ? 'an answer (TASK_STATE_INPUT_REQUIRED)' : 'an approval (TASK_STATE_AUTH_REQUIRED)';
    const type = kind === 'input' ? 'InputDeadlineExceeded' : 'AuthDeadlineExceeded';
    const { agent } = this.input;
    switch (policy.onDeadline) {
      case 'remind':
        for (let nth = 1; ; nth++) {
          await this.alert(kind, round, nth);
          if (await condition(done, policy.remindEvery ?? policy.after)) return;
        }
      case 'fail':
        throw ApplicationFailure.create({
          type,
          nonRetryable: true,
          message: `${agent.name} task ${this.task.taskId} waited for ${what} longer than ${policy.after}`,
        });
      case 'cancel':
        await this.cancelRemote();
        throw ApplicationFailure.create({
          type,
          nonRetryable: true,
          message: `${agent.name} task ${this.task.taskId} waited for ${what} longer than ${policy.after}; sent CancelTask (remote state now ${this.task.state})`,
        });
    }
  }

  async cancelRemote(): Promise<void> {
    const { task } = this;
    const { agent } = this.input;
    if (!task.taskId || task.terminal) return;
    const reply = await CancellationScope.nonCancellable(() => this.calls.cancelRemoteTask({ agent, taskId: task.taskId! }));
    if (reply) task.apply(reply);
    this.publish();
  }

  async answerQuestion(): Promise<void> {
    const { task } = this;
    const { agent, policies } = this.input;
    this.turn++;
    const myTurn = this.turn;
    const question = { timestamp: task.timestamp, text: task.text };
    this.publish();
    await this.alert('input', myTurn, 0);
    await this.waitWithDeadline(() => this.pendingAnswer !== undefined || task.state !== 'TASK_STATE_INPUT_REQUIRED', policies.input, 'input', myTurn);
    const answer = this.pendingAnswer;
    if (!answer) return; // the task moved on by itself (e.g. cancelled remotely)
    const sent = await this.sender.sendMessage({
      agent,
      messageId: `${this.info.workflowId}/${myTurn}`,
      message: { text: answer.text, data: answer.data },
      taskId: task.taskId,
      contextId: task.contextId,
      question,
      timeoutMs: msToNumber(policies.sendTimeout),
    });
    if (sent.observation) task.apply(sent.observation);
    this.replies.set(myTurn, { turn: myTurn, state: task.state!, text: task.text });
    this.pendingAnswer = undefined;
  }

  async awaitApproval(): Promise<void> {
    const { task } = this;
    const { agent, policies } = this.input;
    const round = task.authEntries;
    if (round > policies.maxAuthRounds) {
      await this.cancelRemote();
      throw ApplicationFailure.create({
        type: 'AuthRoundsExceeded',
        nonRetryable: true,
        message: `${agent.name} task ${task.taskId} entered TASK_STATE_AUTH_REQUIRED ${round} times, more than the bound of ${policies.maxAuthRounds}; sent CancelTask`,
      });
    }
    // Subscribe first, alert second: the approval may land the moment the operator reads the alert.
    const watch = await this.startWatch();
    await condition(() => watch.established || watch.done);
    throwIfFailed(watch);
    const stillWaiting = (): boolean => task.state === 'TASK_STATE_AUTH_REQUIRED' && task.authEntries === round;
    if (!stillWaiting()) return;
    this.publish();
    await this.alert('auth', round, 0);
    await this.waitWithDeadline(() => !stillWaiting() || watch.done, policies.auth, 'auth', round);
    throwIfFailed(watch);
  }

  // The task is over: release the watch's slot and the agent's push config.
  async stopWatching(): Promise<void> {
    if (this.watch && !this.watch.done) this.watch.scope.cancel();
    if (this.pushConfigId) {
      const configId = this.pushConfigId;
      this.pushConfigId = undefined;
      try {
        await CancellationScope.nonCancellable(() => this.calls.deletePush({ agent: this.input.agent, taskId: this.task.taskId!, configId }));
      } catch (err) {
        log.warn('push config left at the agent', { configId, error: String(err) });
      }
    }
  }
}

function describeWait(agent: string, task: RemoteTask, waitingOn: string, turn: number): string {
  const head = `**${agent}** task \`${task.taskId ?? '(not created yet)'}\`: ${task.state ?? 'sending'}`;
  if (waitingOn === 'human') return `${head}\n\nWaiting on a human (question turn ${turn}):\n\n> ${task.text ?? ''}\n\nAnswer with the \`answer\` update or signal.`;
  if (waitingOn === 'operator') return `${head}\n\nWaiting on an operator:\n\n> ${task.text ?? ''}`;
  return task.text ? `${head}\n\n> ${task.text}` : head;
}

function addMs(d: Duration, extra: number): number {
  return msToNumber(d) + extra;
}
