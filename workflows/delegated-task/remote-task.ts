// What the workflow knows of the remote task, merged from every observation. Pure and deterministic.
import type { Artifact, TaskState } from '../../a2a/schema';
import type { Observation, WaitingOn } from './messages';

// The terminal states (a2a/schema.ts TERMINAL_STATES), here so that the workflow bundle does not evaluate
// the A2A schemas at every workflow start (see schemas.ts).
const TERMINAL: readonly TaskState[] = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];

/** Whether a task in this state never changes again. */
export function isTerminalState(state: TaskState): boolean {
  return TERMINAL.includes(state);
}

/** A cheap fingerprint of the artifacts, so a watch can tell the workflow's view from a newer one. */
export function artifactKey(artifacts: Artifact[]): string {
  return artifacts.map((a) => `${a.artifactId}/${a.parts.length}/${a.parts.map(partSize).join('.')}`).join(',');
}

function partSize(p: Artifact['parts'][number]): number {
  if ('text' in p && typeof p.text === 'string') return p.text.length;
  if ('raw' in p && typeof p.raw === 'string') return p.raw.length;
  return 1;
}

/** Since this patch every newer AUTH_REQUIRED status is a new approval round, whatever its words. */
export const AUTH_ROUNDS_BY_TIME_PATCH = 'auth-rounds-by-time';
/** Since this patch a status without a timestamp, in the same state but other words, is newer. */
export const STATUS_WORDS_WITHOUT_TIME_PATCH = 'status-words-without-time';

/** Everything a RemoteTask knows, as plain data: carried across continue-as-new. */
export interface RemoteTaskSnapshot {
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  timestamp?: string;
  text?: string;
  version: number;
  authEntries: number;
  artifacts: Artifact[];
}

export class RemoteTask {
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  timestamp?: string;
  text?: string;
  /** Bumped on every accepted status change, so waits can tell "something happened". */
  version = 0;
  /** How many approval rounds the task asked for: entries into AUTH_REQUIRED, and newer requests within it. */
  authEntries = 0;
  /**
   * AUTH_ROUNDS_BY_TIME_PATCH: a newer AUTH_REQUIRED status is a new round whatever its words (the
   * WORKING between two rounds is easily missed: a poll, or a stream's coalesced frames). Without
   * it only other words made one. The workflow asks its patch only when the words are the same;
   * a pure RemoteTask (the watch's) counts the new way.
   */
  roundsByTime: () => boolean = () => true;
  /**
   * STATUS_WORDS_WITHOUT_TIME_PATCH: when neither status has a timestamp (a2a-python 0.3 over
   * HTTP+JSON never sends one), the same state in other words is a newer status (the next question,
   * the next approval round); before it such a status was ignored. The workflow asks its patch only
   * then; a pure RemoteTask (the watch's) reads it the new way.
   */
  wordsWithoutTime: () => boolean = () => true;
  private readonly artifacts = new Map<string, Artifact>();

  static from(s: RemoteTaskSnapshot): RemoteTask {
    const t = new RemoteTask();
    Object.assign(t, { taskId: s.taskId, contextId: s.contextId, state: s.state, timestamp: s.timestamp, text: s.text });
    t.version = s.version;
    t.authEntries = s.authEntries;
    for (const a of s.artifacts) t.artifacts.set(a.artifactId, a);
    return t;
  }

  snapshot(): RemoteTaskSnapshot {
    return {
      taskId: this.taskId,
      contextId: this.contextId,
      state: this.state,
      timestamp: this.timestamp,
      text: this.text,
      version: this.version,
      authEntries: this.authEntries,
      artifacts: this.artifactList,
    };
  }

  /** What is known, as one observation (a snapshot: status and every artifact). */
  observation(source: Observation['source']): Observation {
    return {
      source,
      taskId: this.taskId ?? '',
      contextId: this.contextId,
      status: this.state ? { state: this.state, timestamp: this.timestamp, text: this.text } : undefined,
      artifacts: this.artifactList,
    };
  }

  get terminal(): boolean {
    return this.state !== undefined && TERMINAL.includes(this.state);
  }

  get artifactList(): Artifact[] {
    return [...this.artifacts.values()];
  }

  /** Applies an observation; returns true when the status changed. Older statuses (by timestamp) are ignored. */
  apply(o: Observation): boolean {
    if (this.taskId !== undefined && o.taskId !== this.taskId) return false;
    this.taskId ??= o.taskId;
    this.contextId ??= o.contextId;
    if (this.terminal) return false; // a terminal task never changes again
    const s = o.status;
    // A snapshot older than what we know must not roll artifacts back either.
    if (s && this.isOlder(s.timestamp)) return false;
    if (o.artifacts) for (const a of o.artifacts) this.artifacts.set(a.artifactId, a);
    if (o.artifactUpdate) this.mergeArtifact(o.artifactUpdate.artifact, o.artifactUpdate.append);
    if (!s) return false;
    const reworded = this.rewordedWithoutTime(s);
    if (!reworded && !this.isNewer(s.timestamp, s.state)) return false;
    if (s.state === 'TASK_STATE_AUTH_REQUIRED' && this.isNewAuthRequest(s.text)) this.authEntries++;
    const changed = reworded || s.state !== this.state || s.timestamp !== this.timestamp;
    this.state = s.state;
    this.timestamp = s.timestamp ?? this.timestamp;
    if (s.text !== undefined) this.text = s.text;
    if (changed) this.version++;
    return changed;
  }

  /**
   * Whether the task still waits on this question: INPUT_REQUIRED at the question's time, or, when
   * neither has a timestamp, in its words (they change only under STATUS_WORDS_WITHOUT_TIME_PATCH).
   */
  asks(question: { timestamp?: string | undefined; text?: string | undefined }): boolean {
    if (this.state !== 'TASK_STATE_INPUT_REQUIRED' || this.timestamp !== question.timestamp) return false;
    return question.timestamp !== undefined || this.text === question.text;
  }

  waitingOn(): WaitingOn {
    if (this.state === 'TASK_STATE_INPUT_REQUIRED') return 'human';
    if (this.state === 'TASK_STATE_AUTH_REQUIRED') return 'operator';
    return this.terminal ? 'none' : 'agent';
  }

  /**
   * An entry into AUTH_REQUIRED is a round; so is a newer AUTH_REQUIRED status (with another request,
   * before AUTH_ROUNDS_BY_TIME_PATCH), which is how a poll sees a second approval whose WORKING in
   * between it missed.
   */
  private isNewAuthRequest(text: string | undefined): boolean {
    if (this.state !== 'TASK_STATE_AUTH_REQUIRED') return true;
    // Only a status newer than the one held gets here (apply checks): by time, that is a new round.
    return (text !== undefined && text !== this.text) || this.roundsByTime();
  }

  /** No timestamps on either side, the same state, other words: the agent moved on (when the patch says so). */
  private rewordedWithoutTime(s: { state: TaskState; timestamp?: string | undefined; text?: string | undefined }): boolean {
    if (s.timestamp !== undefined || this.timestamp !== undefined || s.state !== this.state) return false;
    return s.text !== undefined && this.text !== undefined && s.text !== this.text && this.wordsWithoutTime();
  }

  private isOlder(timestamp: string | undefined): boolean {
    if (timestamp === undefined || this.timestamp === undefined) return false;
    const next = Date.parse(timestamp);
    const cur = Date.parse(this.timestamp);
    return !Number.isNaN(next) && !Number.isNaN(cur) && next < cur;
  }

  private isNewer(timestamp: string | undefined, state: TaskState): boolean {
    if (this.state === undefined) return true;
    if (timestamp === undefined || this.timestamp === undefined) return state !== this.state || timestamp !== this.timestamp;
    const next = Date.parse(timestamp);
    const cur = Date.parse(this.timestamp);
    if (Number.isNaN(next) || Number.isNaN(cur)) return timestamp !== this.timestamp;
    return next > cur || (next === cur && state !== this.state);
  }

  private mergeArtifact(a: Artifact, append: boolean): void {
    const prev = this.artifacts.get(a.artifactId);
    this.artifacts.set(a.artifactId, append && prev ? { ...prev, parts: [...prev.parts, ...a.parts] } : a);
  }
}
