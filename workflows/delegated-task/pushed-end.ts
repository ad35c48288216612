// A terminal state that arrives by push is the agent's word only once GetTask says so: a push
// (whose token a leaked webhook secret can forge) alone would end a step, even one waiting for an
// approval. The push is set aside and GetTask's answer, artifacts included, is applied instead.
import { log } from '@temporalio/workflow';
import type { Calls } from './calls';
import type { DelegatedTask } from './input';
import type { Observation } from './messages';
import { isTerminalState, type RemoteTask } from './remote-task';

export const CONFIRM_PUSHED_END_PATCH = 'confirm-pushed-end';

export class PushedEndConfirmation {
  /** The GetTask confirming a pushed terminal state, while it runs. */
  private running?: Promise<void>;

  constructor(
    private readonly task: RemoteTask,
    private readonly calls: Calls,
    private readonly agent: DelegatedTask['agent'],
  ) {}

  /** A push that would end the task (the patch is asked only then, so other histories record no marker). */
  endsTask(o: Observation): boolean {
    return o.source === 'push' && o.status !== undefined && isTerminalState(o.status.state) && !this.task.terminal && this.task.taskId !== undefined;
  }

  /** Asks the agent (GetTask) instead of believing the push; one call at a time, whatever the pushes. */
  confirm(): Promise<void> {
    this.running ??= (async () => {
      try {
        this.task.apply(await this.calls.getRemoteTask({ agent: this.agent, taskId: this.task.taskId!, withArtifacts: true }));
      } catch (err) {
        // The watch (stream or backstop poll) still learns the end the agent really reached.
        log.warn('a terminal state pushed for this task could not be confirmed with GetTask', { error: String(err) });
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }
}
