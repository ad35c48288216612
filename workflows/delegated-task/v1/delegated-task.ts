// FROZEN: DelegatedTaskWorkflow as first released (v1). Runs only for histories that began before the
// `delegated-task-v2` patch, so those workflows replay and finish on the code they started with.
// Restructured without behaviour change on 2026-12-03, because of the project's rule that no workflow
// function body is longer than 120 lines: the ~280-line body of closures over its local state became
// the class LegacyDelegation (legacy-delegation.ts), and this function wires the handlers onto its
// methods and runs the same loop; the same commands in the same order, with the same awaits. Never
// change what it does; delete it (with the patch check) once no v1 run is open and no v1 fixture is kept.
import { ApplicationFailure, condition, isCancellation, log, setHandler } from '@temporalio/workflow';
import type { DelegatedTask, DelegatedTaskInput, DelegatedTaskResult } from '../input';
import { checkDelegatedTaskInput } from '../check';
import { answerSignal, answerUpdate, observeSignal, statusQuery } from '../messages';
import type { RemoteTask } from './remote-task';
import { LegacyDelegation, throwIfFailed } from './legacy-delegation';

export async function legacyDelegatedTask(raw: DelegatedTaskInput): Promise<DelegatedTaskResult> {
  const delegation = new LegacyDelegation(parseInput(raw));
  const { task } = delegation;

  // Handlers first: an update that arrives with the first activation must find its handler.
  setHandler(statusQuery, () => delegation.status());
  setHandler(observeSignal, (observation) => delegation.observe(observation));
  setHandler(answerUpdate, (answer) => delegation.deliverAnswer(answer), {
    validator: (answer) => delegation.validateAnswer(answer),
    description: 'Answer the question the agent asked (INPUT_REQUIRED); returns the agent state after it.',
  });
  setHandler(answerSignal, (answer) => delegation.takeSignalledAnswer(answer), {
    description: 'Answer the current question (fire-and-forget; for the Temporal UI). Prefer the update.',
  });

  try {
    const first = await delegation.sendFirst();
    if (first.message) {
      return { kind: 'message', artifacts: [], message: first.message, text: first.text };
    }
    if (first.observation) task.apply(first.observation);

    while (!task.terminal) {
      if (task.state === 'TASK_STATE_INPUT_REQUIRED') {
        await delegation.answerQuestion();
      } else if (task.state === 'TASK_STATE_AUTH_REQUIRED') {
        await delegation.awaitApproval();
      } else {
        delegation.publish();
        const version = task.version;
        const watch = await delegation.startWatch();
        await condition(() => task.version !== version || watch.done);
        throwIfFailed(watch);
      }
      delegation.publish();
    }
    delegation.publish();
    if (task.state === 'TASK_STATE_CANCELED') {
      // Cancelled at the agent by someone else: record this run as cancelled too. A workflow may
      // not cancel itself, so an activity asks the server; the request comes back as this run's
      // own cancellation, which the catch below completes.
      await delegation.cancelThisRun();
      await condition(() => false);
    }
    return finish(delegation.input.agent.name, task);
  } catch (err) {
    if (isCancellation(err)) {
      await delegation.cancelRemote();
      log.info('workflow cancelled; remote task cancelled', { taskId: task.taskId, state: task.state });
    }
    throw err;
  } finally {
    await delegation.stopWatching();
  }
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
