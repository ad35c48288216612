// Asks the agent to cancel its task and reports what the agent says the task is now.
import { log } from '@temporalio/activity';
import { TaskNotCancelableError, TaskNotFoundError } from '../a2a';
import type { AgentRef } from '../workflows/delegated-task/input';
import type { Observation } from '../workflows/delegated-task/messages';
import type { AgentDirectory } from './agents';
import { withTypedFailures } from './failures';
import { observeTask } from './observe';
import { heartbeating } from './heartbeating';
import { callTimeoutMs } from '../workflows/delegated-task/call-timeout';

export function createCancelRemoteTask(agents: AgentDirectory) {
  return async function cancelRemoteTask(input: { agent: AgentRef; taskId: string }): Promise<Observation | undefined> {
    return heartbeating(() => withTypedFailures(async () => {
      const client = await agents.client(input.agent);
      const o = { timeoutMs: callTimeoutMs(input.agent) };
      try {
        return observeTask(await client.cancelTask({ id: input.taskId }, o), 'cancel');
      } catch (err) {
        // Already finished (or gone): record where it ended instead of failing the cancellation.
        if (err instanceof TaskNotCancelableError) return observeTask(await client.getTask({ id: input.taskId, historyLength: 0 }, o), 'get');
        if (err instanceof TaskNotFoundError) {
          log.warn('agent no longer knows the task; nothing to cancel', { taskId: input.taskId });
          return undefined;
        }
        throw err;
      }
    }));
  };
}
