// FROZEN: the v1 RemoteTask, used only by the frozen v1 code beside it (replay of v1 histories).
import type { Artifact, TaskState } from '../../../a2a/schema';
import type { Observation, WaitingOn } from '../messages';

// The terminal states (a2a/schema.ts TERMINAL_STATES), here so that the workflow bundle does not evaluate
// the A2A schemas at every workflow start (see schemas.ts).
const TERMINAL: readonly TaskState[] = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];

export class RemoteTask {
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  timestamp?: string;
  text?: string;
  /** Bumped on every accepted status change, so waits can tell "something happened". */
  version = 0;
  /** How many times the task entered AUTH_REQUIRED. */
  authEntries = 0;
  private readonly artifacts = new Map<string, Artifact>();

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
    if (o.artifacts) for (const a of o.artifacts) this.artifacts.set(a.artifactId, a);
    if (o.artifactUpdate) this.mergeArtifact(o.artifactUpdate.artifact, o.artifactUpdate.append);
    const s = o.status;
    if (!s || !this.isNewer(s.timestamp, s.state)) return false;
    if (s.state === 'TASK_STATE_AUTH_REQUIRED' && this.state !== 'TASK_STATE_AUTH_REQUIRED') this.authEntries++;
    const changed = s.state !== this.state || s.timestamp !== this.timestamp;
    this.state = s.state;
    this.timestamp = s.timestamp ?? this.timestamp;
    if (s.text !== undefined) this.text = s.text;
    if (changed) this.version++;
    return changed;
  }

  waitingOn(): WaitingOn {
    if (this.state === 'TASK_STATE_INPUT_REQUIRED') return 'human';
    if (this.state === 'TASK_STATE_AUTH_REQUIRED') return 'operator';
    return 'none';
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
