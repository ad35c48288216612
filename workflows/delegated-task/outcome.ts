// How a delegated task's workflow ends: the artifacts of a completed task, a typed failure for any
// other terminal state or a broken bound (a deadline, the approval rounds), and a failed activity
// retyped after its innermost cause, so that the plan, the CLI and the Temporal UI read what went
// wrong at the agent rather than "Activity task failed".
import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { DeadlinePolicy, DelegatedTaskResult } from './input';
import type { SendResolution } from './messages';
import type { RemoteTask } from './remote-task';
import { describeFailure, innermostCause } from '../failure-cause';

/** The result of a task that reached a terminal state: COMPLETED returns it, any other end throws it. */
export function taskOutcome(agentName: string, task: RemoteTask): DelegatedTaskResult {
  const result: DelegatedTaskResult = {
    kind: 'task',
    state: task.state,
    taskId: task.taskId,
    contextId: task.contextId,
    artifacts: task.artifactList,
    text: task.text,
  };
  if (task.state === 'TASK_STATE_COMPLETED') return result;
  throw ApplicationFailure.create({
    type: task.state === 'TASK_STATE_REJECTED' ? 'RemoteTaskRejected' : 'RemoteTaskFailed',
    nonRetryable: true,
    message: `${agentName} task ${task.taskId} ended ${task.state}${task.text ? `: ${task.text}` : ''}`,
    details: [result],
  });
}

/**
 * A failed call fails the workflow with the innermost typed cause in its own type and message
 * (`RemoteTaskLost: agent deployer no longer knows task … (activity watchRemoteTask)`), not with
 * "Activity task failed"; the chain stays attached as the cause.
 */
export function withTypedCause(err: unknown, agentName: string, taskId: string | undefined): unknown {
  if (!(err instanceof ActivityFailure) || isCancellation(err)) return err;
  const inner = innermostCause(err);
  return ApplicationFailure.create({
    type: inner instanceof ApplicationFailure && inner.type ? inner.type : (inner?.name ?? 'ActivityFailure'),
    nonRetryable: true,
    message: `${agentName} task ${taskId ?? '(not created)'}: ${describeFailure(err)}`,
    cause: err,
  });
}

/** The waits a deadline policy bounds: a question, an approval, the agent's own work. */
export type DeadlineKind = 'input' | 'auth' | 'working' | 'total';

/** The failure of a wait past its deadline; `cancelled` holds the remote state after the CancelTask it sent, if it sent one. */
export function deadlineExceeded(policy: DeadlinePolicy, kind: DeadlineKind, agentName: string, taskId: string | undefined, cancelled?: { state?: string }): ApplicationFailure {
  const what = { input: 'an answer (TASK_STATE_INPUT_REQUIRED)', auth: 'an approval (TASK_STATE_AUTH_REQUIRED)', working: 'the agent to finish its work (TASK_STATE_SUBMITTED / TASK_STATE_WORKING)', total: 'the whole task to end (policies.total)' }[kind];
  const message = `${agentName} task ${taskId} waited for ${what} longer than ${policy.after}`;
  return ApplicationFailure.create({
    type: { input: 'InputDeadlineExceeded', auth: 'AuthDeadlineExceeded', working: 'WorkingDeadlineExceeded', total: 'TaskDeadlineExceeded' }[kind],
    nonRetryable: true,
    message: cancelled ? `${message}; sent CancelTask (remote state now ${cancelled.state})` : message,
  });
}

/** The failure of a task that asked for approval more often than policies.maxAuthRounds allows (after CancelTask). */
export function authRoundsExceeded(agentName: string, taskId: string | undefined, round: number, maxAuthRounds: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'AuthRoundsExceeded',
    nonRetryable: true,
    message: `${agentName} task ${taskId} entered TASK_STATE_AUTH_REQUIRED ${round} times, more than the bound of ${maxAuthRounds}; sent CancelTask`,
  });
}

/** The resolveSend update's validator: a decision only while a send waits for one, and a well-formed one. */
export function checkResolution(resolution: SendResolution, waiting: boolean): void {
  if (!waiting) throw new Error('resolve rejected: no send is waiting for a decision');
  if (resolution.action !== 'resend' && resolution.action !== 'adopt') throw new Error(`resolve rejected: action ${JSON.stringify((resolution as { action?: unknown }).action)} is neither "resend" nor "adopt"`);
  if (resolution.action === 'adopt' && (typeof resolution.taskId !== 'string' || resolution.taskId === '')) throw new Error('resolve rejected: adopt needs the remote taskId');
}
