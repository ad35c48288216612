// Registers (and later deletes) a push-notification config for one remote task, when the agent
// supports push and the planner has a public webhook URL.
import { Context, log } from '@temporalio/activity';
import { A2AError, TaskNotFoundError, type A2AClient } from '../a2a';
import type { AgentRef } from '../workflows/delegated-task/input';
import type { AgentDirectory } from './agents';
import { withTypedFailures } from './failures';
import { heartbeating } from './heartbeating';
import { pushToken, pushUrl, type PushSettings } from './push-token';

/** Registers the planner's webhook for one task, once: a retried registration finds the config it made. */
export async function ensurePushConfig(client: A2AClient, push: PushSettings, workflowId: string, taskId: string): Promise<string | undefined> {
  const url = pushUrl(push.baseUrl, workflowId, taskId);
  const token = pushToken(push.secret, workflowId, taskId);
  // v0.3 sets a config under its id (the client layer gives the task's), so setting it again replaces
  // it: no list first, which a2a-python 0.3's HTTP+JSON does not implement (HTTP 500).
  if (client.a2aVersion === '0.3') return (await client.createTaskPushNotificationConfig({ taskId, url, token })).id;
  const existing = await client.listTaskPushNotificationConfigs({ taskId });
  const mine = existing.configs.find((c) => c.url === url);
  if (mine?.id) return mine.id;
  const created = await client.createTaskPushNotificationConfig({ taskId, url, token });
  return created.id;
}

export function createPushConfigActivities(agents: AgentDirectory, push: PushSettings | undefined) {
  return {
    /** Returns the config id, or undefined when push is not available for this agent. */
    async registerPush(input: { agent: AgentRef; taskId: string }): Promise<string | undefined> {
      if (!push) return undefined;
      return withTypedFailures(async () => {
        const client = await agents.client(input.agent);
        if (client.card.capabilities.pushNotifications !== true) return undefined;
        const workflowId = Context.current().info.workflowExecution?.workflowId;
        if (!workflowId) throw new Error('registerPush runs only as a workflow activity');
        return ensurePushConfig(client, push, workflowId, input.taskId);
      });
    },

    async deletePush(input: { agent: AgentRef; taskId: string; configId: string }): Promise<void> {
      return heartbeating(() => withTypedFailures(async () => {
        const client = await agents.client(input.agent);
        try {
          await client.deleteTaskPushNotificationConfig({ taskId: input.taskId, id: input.configId });
        } catch (err) {
          // Delete is idempotent by the spec; an agent that already forgot the task is done too.
          if (err instanceof TaskNotFoundError) return;
          if (err instanceof A2AError && !err.retryable) log.warn('could not delete push config', { error: err.message });
          else throw err;
        }
      }));
    },
  };
}
