// What one run of DelegatedTaskWorkflow hands the next when it continues as new. The carry is the
// next run's second argument, so it is recorded in history: it is a contract between this code and
// runs already under way, and its shape may only grow compatibly (new fields optional).
import type { WatchProblem } from './messages';
import type { RemoteTaskSnapshot } from './remote-task';

/** A question as published (search attributes, details, inbox): only such a question takes answers. */
export interface Question {
  turn: number;
  timestamp?: string;
  text?: string;
}

/** The wait in progress (a question turn or an approval round), for deadlines across runs. */
export interface Wait {
  key: string;
  since: number;
  reminders: number;
  /** Watch leases begun in this wait: the first one heartbeats fast. */
  leases: number;
}

export interface DelegatedTaskCarry {
  task: RemoteTaskSnapshot;
  turn: number;
  question?: Question;
  wait?: Wait;
  /** The whole task's deadline clock (policies.total): since its start, and its reminders. */
  overall?: Wait;
  /** Highest approval round / question turn whose alert went out. */
  authAlerted: number;
  inputAlerted: number;
  pushConfigId?: string;
  watchSeq: number;
  problem?: WatchProblem;
  runs: number;
}
