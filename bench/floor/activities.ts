// The floor's activities, on the plain @a2a-js/sdk client the baseline uses (bench/lib/baseline.ts),
// so that the floor differs from the baseline by Temporal alone.
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { TaskState } from '@a2a-js/sdk';
import { connect, frameOf, userMessage, type A2AClient } from '../lib/baseline';
import { floorStepWaitingSignal } from './messages';

export interface FloorTask {
  taskId: string;
  contextId: string;
  state: string;
}

const clients = new Map<string, Promise<A2AClient>>();
const clientOf = (url: string): Promise<A2AClient> => {
  let c = clients.get(url);
  if (!c) clients.set(url, (c = connect(url)));
  return c;
};

const STOPS = new Set<number>([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED, TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

const name = (state: number): string => TaskState[state] ?? String(state);

export function createFloorActivities(alertUrl: string, client: Client) {
  /** Posts the alert; with `reportTo`, reports the question to that plan beside it (floorStepWaitingSignal). */
  async function alert({ reportTo, ...a }: { kind: string; taskId: string; reportTo?: string }): Promise<void> {
    const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
    const post = async (): Promise<void> => {
      const res = await fetch(alertUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...a, workflowId, agent: '', text: '' }) });
      if (!res.ok) throw new Error(`alert: HTTP ${res.status}`);
    };
    await Promise.all([post(), reportTo ? client.workflow.getHandle(reportTo).signal(floorStepWaitingSignal, 'human') : undefined]);
  }
  return {
    /** The first message streamed until the task stops; an answer as one blocking call on the same task. */
    async send(input: { agentUrl: string; text: string; task?: FloorTask }): Promise<FloorTask> {
      const c = await clientOf(input.agentUrl);
      // Message ids as the planner's (<workflow id>/<n>), so the bench finds each message's receipt.
      const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
      if (input.task) {
        const message = { ...userMessage(input.text, { id: input.task.taskId, contextId: input.task.contextId }), messageId: `${workflowId}/1` };
        const r = (await c.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined })) as { status?: { state: number } };
        return { ...input.task, state: name(r.status?.state ?? 0) };
      }
      const seen: { taskId?: string; contextId?: string } = {};
      for await (const ev of c.sendMessageStream({ tenant: '', message: { ...userMessage(input.text), messageId: `${workflowId}/0` }, configuration: undefined, metadata: undefined })) {
        const f = frameOf(ev);
        seen.taskId ??= f.taskId;
        seen.contextId ??= f.contextId;
        if (f.state !== undefined && STOPS.has(f.state)) return { taskId: seen.taskId!, contextId: seen.contextId ?? '', state: name(f.state) };
      }
      throw new Error('send: the stream ended before the task stopped');
    },
    alert,
    /** Subscribes, alerts once the first frame shows the approval still waited for, returns the end. */
    async watch(input: { agentUrl: string; task: FloorTask }): Promise<FloorTask> {
      const c = await clientOf(input.agentUrl);
      let alerted = false;
      for await (const ev of c.resubscribeTask({ tenant: '', id: input.task.taskId })) {
        const f = frameOf(ev);
        if (!alerted && f.state === TaskState.TASK_STATE_AUTH_REQUIRED) {
          alerted = true;
          await alert({ kind: 'auth', taskId: input.task.taskId });
        } else if (f.state !== undefined && f.state !== TaskState.TASK_STATE_AUTH_REQUIRED && STOPS.has(f.state)) {
          return { ...input.task, state: name(f.state) };
        }
      }
      throw new Error('watch: the stream ended before the task did');
    },
  };
}

export type FloorActivities = ReturnType<typeof createFloorActivities>;
