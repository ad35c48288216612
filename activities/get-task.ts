// One GetTask, for a wait that holds no watch (a question a human is thinking about): notices a
// task that was cancelled, failed or expired at the agent meanwhile. Also the agent's own word on a
// terminal state that arrived by push (`withArtifacts`: the task as the agent has it, artifacts too),
// which a push alone never makes final.
import { TaskNotFoundError } from '../a2a';
import type { AgentRef } from '../workflows/delegated-task/input';
import type { Observation } from '../workflows/delegated-task/messages';
import type { AgentDirectory } from './agents';
import { remoteTaskLost, withTypedFailures } from './failures';
import { observeTask } from './observe';
import { heartbeating } from './heartbeating';
import { callTimeoutMs } from '../workflows/delegated-task/call-timeout';

export function createGetRemoteTask(agents: AgentDirectory) {
  return async function getRemoteTask(input: { agent: AgentRef; taskId: string; withArtifacts?: boolean }): Promise<Observation> {
    return heartbeating(() => withTypedFailures(async () => {
      const client = await agents.client(input.agent);
      try {
        const o = observeTask(await client.getTask({ id: input.taskId, historyLength: 0 }, { timeoutMs: callTimeoutMs(input.agent) }), 'poll');
        // The workflow keeps the artifacts it has; a poll only needs the status.
        if (!input.withArtifacts) delete o.artifacts;
        return o;
      } catch (err) {
        if (err instanceof TaskNotFoundError) throw remoteTaskLost(input.agent.name, input.taskId, err);
        throw err;
      }
    }));
  };
}
