// FROZEN: DelegatedTaskWorkflow as first released (v1). Runs only for histories that began before the
// `delegated-task-v2` patch, so those workflows replay and finish on the code they started with. Never
// edit this file; delete it (with the patch check) once no v1 run is open and no v1 fixture is kept.
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import type { PlannerActivities } from '../../../activities';
import {
  type DelegatedTask,
  type DelegatedTaskInput,
  type DeadlinePolicy,
  type DelegatedTaskResult,
} from '../input';
import { checkDelegatedTaskInput } from '../check';
import {
  type Answer,
  type AnswerResult,
  answerSignal,
  answerUpdate,
  observeSignal,
  statusQuery,
} from '../messages';
import { RemoteTask } from './remote-task';
import { A2aAgent, A2aTaskId, A2aTaskState, PlanId, PlannerWaitingOn } from '../../search-attributes';

type Acts = PlannerActivities;

export async function legacyDelegatedTask(raw: DelegatedTaskInput): Promise<DelegatedTaskResult> {
  const input = parseInput(raw);
  const { agent, policies } = input;
  const wf = workflowInfo();
  const task = new RemoteTask();
  let turn = 0; // the current question turn
  let pendingAnswer: Answer | undefined;
  const replies = new Map<number, AnswerResult>();
  let watch: Watch | undefined;
  let watchSeq = 0;
  let pushConfigId: string | undefined;

  const canAnswer = (a: Answer): string | undefined => {
    if (task.state !== 'TASK_STATE_INPUT_REQUIRED') return `the task is not waiting for input (state ${task.state ?? 'unknown'})`;
    if (pendingAnswer) return `question ${turn} already has an answer being sent`;
    if (a.turn !== undefined && a.turn !== turn) return `the answer names turn ${a.turn}, but the current question is turn ${turn}`;
    if ((a.text === undefined || a.text.trim() === '') && a.data === undefined) return 'an answer needs text or data';
    return undefined;
  };

  // Handlers first: an update that arrives with the first activation must find its handler.
  setHandler(statusQuery, () => ({
    agent: agent.name,
    planId: input.planId,
    taskId: task.taskId,
    contextId: task.contextId,
    state: task.state,
    waitingOn: task.waitingOn(),
    text: task.text,
    turn,
    authRounds: task.authEntries,
    lastUpdate: task.timestamp,
  }));
  setHandler(observeSignal, (o) => {
    if (watch && o.watchId === watch.id && o.first) watch.established = true;
    task.apply(o);
  });
  setHandler(
    answerUpdate,
    async (a) => {
      const myTurn = turn;
      pendingAnswer = a;
      await condition(() => replies.has(myTurn));
      return replies.get(myTurn)!;
    },
    {
      validator: (a) => {
        const why = canAnswer(a);
        if (why) throw new Error(`answer rejected: ${why}`);
      },
      description: 'Answer the question the agent asked (INPUT_REQUIRED); returns the agent state after it.',
    },
  );
  setHandler(
    answerSignal,
    (a) => {
      const why = canAnswer(a);
      if (why) log.warn('answer signal ignored', { reason: why });
      else pendingAnswer = a;
    },
    { description: 'Answer the current question (fire-and-forget; for the Temporal UI). Prefer the update.' },
  );

  // A blocking SendMessage may take as long as the agent needs to reach an interrupted state.
  const sender = proxyActivities<Acts>({
    startToCloseTimeout: addMs(policies.sendTimeout, 30_000),
    heartbeatTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
  });
  // Short calls: alerts, CancelTask, push configs, the run's own cancellation.
  const calls = proxyActivities<Acts>({
    startToCloseTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 20 },
  });
  const watcher = proxyActivities<Acts>({
    taskQueue: `${wf.taskQueue}-watch`,
    startToCloseTimeout: '3650d', // bounded by heartbeats, not by a clock: a wait may last weeks
    heartbeatTimeout: policies.watch.heartbeatTimeout,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
  });

  // Search attributes and UI details follow the remote state: the inbox is a visibility query.
  let published = '';
  const publish = (): void => {
    const waitingOn = task.waitingOn();
    const details = describeWait(agent.name, task, waitingOn, turn);
    if (details === published) return; // nothing new: no commands, no history events
    published = details;
    upsertSearchAttributes([
      { key: A2aAgent, value: agent.name },
      ...(input.planId ? [{ key: PlanId, value: input.planId }] : []),
      ...(task.taskId ? [{ key: A2aTaskId, value: task.taskId }] : []),
      ...(task.state ? [{ key: A2aTaskState, value: task.state }] : []),
      { key: PlannerWaitingOn, value: waitingOn },
    ]);
    setCurrentDetails(details);
  };

  const alert = (kind: 'input' | 'auth', round: number, nth: number): Promise<void> =>
    calls.alertOperator({
      kind,
      workflowId: wf.workflowId,
      planId: input.planId,
      agent: agent.name,
      taskId: task.taskId ?? '',
      text: task.text ?? '',
      idempotencyKey: `${wf.workflowId}:${kind}:${round}:${nth}`,
    });

  let pushAsked = false;
  const startWatch = async (): Promise<Watch> => {
    if (watch && !watch.done) return watch;
    if (policies.watch.push && !pushAsked) {
      pushAsked = true;
      pushConfigId = await calls.registerPush({ agent, taskId: task.taskId! });
    }
    const scope = new CancellationScope();
    const w: Watch = { id: `watch-${++watchSeq}`, established: false, done: false, scope };
    watch = w;
    const baseline = { state: task.state, timestamp: task.timestamp };
    const push = pushConfigId !== undefined;
    void scope.run(() =>
      watcher.watchTask({ agent, taskId: task.taskId!, watchId: w.id, baseline, policy: policies.watch, push }),
    ).then(
      (last) => {
        w.done = true;
        if (last) task.apply(last);
      },
      (err: unknown) => {
        w.done = true;
        if (!isCancellation(err)) w.error = err;
      },
    );
    return w;
  };

  /** Waits for `done`, applying a deadline policy; `remind` re-alerts and keeps waiting. */
  const waitWithDeadline = async (
    done: () => boolean,
    policy: DeadlinePolicy | undefined,
    kind: 'input' | 'auth',
    round: number,
  ): Promise<void> => {
    if (!policy) return condition(done);
    if (await condition(done, policy.after)) return;
    const what = kind === 'input' ? 'an answer (TASK_STATE_INPUT_REQUIRED)' : 'an approval (TASK_STATE_AUTH_REQUIRED)';
    const type = kind === 'input' ? 'InputDeadlineExceeded' : 'AuthDeadlineExceeded';
    switch (policy.onDeadline) {
      case 'remind':
        for (let nth = 1; ; nth++) {
          await alert(kind, round, nth);
          if (await condition(done, policy.remindEvery ?? policy.after)) return;
        }
      case 'fail':
        throw ApplicationFailure.create({
          type,
          nonRetryable: true,
          message: `${agent.name} task ${task.taskId} waited for ${what} longer than ${policy.after}`,
        });
      case 'cancel':
        await cancelRemote();
        throw ApplicationFailure.create({
          type,
          nonRetryable: true,
          message: `${agent.name} task ${task.taskId} waited for ${what} longer than ${policy.after}; sent CancelTask (remote state now ${task.state})`,
        });
    }
  };

  const cancelRemote = async (): Promise<void> => {
    if (!task.taskId || task.terminal) return;
    const reply = await CancellationScope.nonCancellable(() => calls.cancelRemoteTask({ agent, taskId: task.taskId! }));
    if (reply) task.apply(reply);
    publish();
  };

  const answerQuestion = async (): Promise<void> => {
    turn++;
    const myTurn = turn;
    const question = { timestamp: task.timestamp, text: task.text };
    publish();
    await alert('input', myTurn, 0);
    await waitWithDeadline(() => pendingAnswer !== undefined || task.state !== 'TASK_STATE_INPUT_REQUIRED', policies.input, 'input', myTurn);
    const answer = pendingAnswer;
    if (!answer) return; // the task moved on by itself (e.g. cancelled remotely)
    const sent = await sender.sendMessage({
      agent,
      messageId: `${wf.workflowId}/${myTurn}`,
      message: { text: answer.text, data: answer.data },
      taskId: task.taskId,
      contextId: task.contextId,
      question,
      timeoutMs: msToNumber(policies.sendTimeout),
    });
    if (sent.observation) task.apply(sent.observation);
    replies.set(myTurn, { turn: myTurn, state: task.state!, text: task.text });
    pendingAnswer = undefined;
  };

  const awaitApproval = async (): Promise<void> => {
    const round = task.authEntries;
    if (round > policies.maxAuthRounds) {
      await cancelRemote();
      throw ApplicationFailure.create({
        type: 'AuthRoundsExceeded',
        nonRetryable: true,
        message: `${agent.name} task ${task.taskId} entered TASK_STATE_AUTH_REQUIRED ${round} times, more than the bound of ${policies.maxAuthRounds}; sent CancelTask`,
      });
    }
    // Subscribe first, alert second: the approval may land the moment the operator reads the alert.
    const w = await startWatch();
    await condition(() => w.established || w.done);
    throwIfFailed(w);
    const stillWaiting = (): boolean => task.state === 'TASK_STATE_AUTH_REQUIRED' && task.authEntries === round;
    if (!stillWaiting()) return;
    publish();
    await alert('auth', round, 0);
    await waitWithDeadline(() => !stillWaiting() || w.done, policies.auth, 'auth', round);
    throwIfFailed(w);
  };

  // The task is over: release the watch's slot and the agent's push config.
  const stopWatching = async (): Promise<void> => {
    if (watch && !watch.done) watch.scope.cancel();
    if (pushConfigId) {
      const configId = pushConfigId;
      pushConfigId = undefined;
      try {
        await CancellationScope.nonCancellable(() => calls.deletePush({ agent, taskId: task.taskId!, configId }));
      } catch (err) {
        log.warn('push config left at the agent', { configId, error: String(err) });
      }
    }
  };

  try {
    const first = await sender.sendMessage({
      agent,
      messageId: `${wf.workflowId}/0`,
      message: input.message,
      timeoutMs: msToNumber(policies.sendTimeout),
    });
    if (first.message) {
      return { kind: 'message', artifacts: [], message: first.message, text: first.text };
    }
    if (first.observation) task.apply(first.observation);

    while (!task.terminal) {
      if (task.state === 'TASK_STATE_INPUT_REQUIRED') {
        await answerQuestion();
      } else if (task.state === 'TASK_STATE_AUTH_REQUIRED') {
        await awaitApproval();
      } else {
        publish();
        const v = task.version;
        const w = await startWatch();
        await condition(() => task.version !== v || w.done);
        throwIfFailed(w);
      }
      publish();
    }
    publish();
    if (task.state === 'TASK_STATE_CANCELED') {
      // Cancelled at the agent by someone else: record this run as cancelled too. A workflow may
      // not cancel itself, so an activity asks the server; the request comes back as this run's
      // own cancellation, which the catch below completes.
      await calls.cancelWorkflowRun({ workflowId: wf.workflowId, runId: wf.runId, reason: `${agent.name} cancelled task ${task.taskId}` });
      await condition(() => false);
    }
    return finish(agent.name, task);
  } catch (err) {
    if (isCancellation(err)) {
      await cancelRemote();
      log.info('workflow cancelled; remote task cancelled', { taskId: task.taskId, state: task.state });
    }
    throw err;
  } finally {
    await stopWatching();
  }
}

interface Watch {
  id: string;
  scope: CancellationScope;
  established: boolean;
  done: boolean;
  error?: unknown;
}

function throwIfFailed(w: Watch): void {
  if (w.error) throw w.error;
}

function finish(agentName: string, task: RemoteTask): DelegatedTaskResult {
  const result: DelegatedTaskResult = {
    kind: 'task',
    state: task.state,
    taskId: task.taskId,
    contextId: task.contextId,
    artifacts: task.artifactList,
    text: task.text,
  };
  switch (task.state) {
    case 'TASK_STATE_COMPLETED':
      return result;
    default:
      throw ApplicationFailure.create({
        type: task.state === 'TASK_STATE_REJECTED' ? 'RemoteTaskRejected' : 'RemoteTaskFailed',
        nonRetryable: true,
        message: `${agentName} task ${task.taskId} ended ${task.state}${task.text ? `: ${task.text}` : ''}`,
        details: [result],
      });
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

function describeWait(agent: string, task: RemoteTask, waitingOn: string, turn: number): string {
  const head = `**${agent}** task \`${task.taskId ?? '(not created yet)'}\`: ${task.state ?? 'sending'}`;
  if (waitingOn === 'human') return `${head}\n\nWaiting on a human (question turn ${turn}):\n\n> ${task.text ?? ''}\n\nAnswer with the \`answer\` update or signal.`;
  if (waitingOn === 'operator') return `${head}\n\nWaiting on an operator:\n\n> ${task.text ?? ''}`;
  return task.text ? `${head}\n\n> ${task.text}` : head;
}

function addMs(d: Duration, extra: number): number {
  return msToNumber(d) + extra;
}
