// The status query's answer: what a delegation shows of itself to the CLI, the API, the inbox's
// fallback and its plan (each stepChanged report carries it).
import type { DelegatedTask } from './input';
import type { DelegatedTaskStatus, RefusedAnswer, WaitingOn, WatchProblem } from './messages';
import type { Question } from './carry';
import { agentWait } from './publish';
import type { RemoteTask } from './remote-task';

/** The Delegation's fields the status reads. */
export interface StatusView {
  readonly input: DelegatedTask;
  readonly task: RemoteTask;
  readonly turn: number;
  readonly question?: Question;
  readonly problem?: WatchProblem;
  readonly unresolvedSend?: string;
  readonly refusedAnswer?: RefusedAnswer;
  readonly runs: number;
  waitingOn(): WaitingOn;
}

export function statusOf(d: StatusView): DelegatedTaskStatus {
  const waitingOn = d.waitingOn();
  return {
    agent: d.input.agent.name,
    planId: d.input.planId,
    ...(d.input.stepId ? { stepId: d.input.stepId } : {}),
    taskId: d.task.taskId,
    contextId: d.task.contextId,
    state: d.task.state,
    waitingOn,
    ...(waitingOn === 'agent' ? { waitingFor: agentWait(d.task) } : {}),
    text: d.unresolvedSend ?? d.task.text,
    // A question counts once it is published: an answer binds to the turn shown here.
    turn: d.question?.turn ?? d.turn,
    authRounds: d.task.authEntries,
    lastUpdate: d.task.timestamp,
    ...(d.problem ? { watchProblem: d.problem } : {}),
    ...(d.unresolvedSend ? { unresolvedSend: d.unresolvedSend } : {}),
    ...(d.refusedAnswer ? { refusedAnswer: d.refusedAnswer } : {}),
    continuedAsNew: d.runs,
  };
}
