// The baseline: a plain script on @a2a-js/sdk's own client, no durability. It does what the planner
// does for the seed scenario: send, answer the question on the same task, send the deploy, approve
// the instant the agent asks (POST /approve/<taskId>), and read the stream to the end.
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client as A2AClient } from '@a2a-js/sdk/client';
import { textPart } from '../../demo/agents/messages';

export type { A2AClient };

export const DIFF = 'Please review this diff of payments-api:\n+const retries = 3;';
export const DEPLOY = 'Deploy build 2026.10.06-1 to staging';

export function connect(baseUrl: string): Promise<A2AClient> {
  return new ClientFactory().createFromUrl(baseUrl);
}

export function userMessage(text: string, task?: { id: string; contextId: string }): Message {
  return {
    messageId: randomUUID(),
    contextId: task?.contextId ?? '',
    taskId: task?.id ?? '',
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const send = (c: A2AClient, message: Message) => c.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined });

function asTask(r: unknown, what: string): Task {
  const t = r as Task;
  if (!t || typeof t !== 'object' || !('status' in t) || !t.status) throw new Error(`${what}: expected a task, got ${JSON.stringify(r).slice(0, 200)}`);
  return t;
}

/** Review with one answer ("main"): two blocking SendMessage calls. Returns the task id. */
export async function review(c: A2AClient, onSent?: (taskId: string) => void): Promise<Task> {
  const first = asTask(await send(c, userMessage(DIFF)), 'review');
  if (first.status!.state !== TaskState.TASK_STATE_INPUT_REQUIRED) throw new Error(`review: expected INPUT_REQUIRED, got ${first.status!.state}`);
  onSent?.(first.id);
  const done = asTask(await send(c, userMessage('main', first)), 'answer');
  if (done.status!.state !== TaskState.TASK_STATE_COMPLETED) throw new Error(`answer: expected COMPLETED, got ${done.status!.state}`);
  return done;
}

export interface DeployTimes {
  taskId: string;
  /** When the approval POST went out, the first frame after it (the resume), and COMPLETED. */
  approvedAt: number;
  resumedAt: number;
  completedAt: number;
}

/** The task a stream frame speaks of, and its state when it says one. */
export function frameOf(ev: StreamResponse): { taskId?: string; contextId?: string; state?: TaskState } {
  const p = ev.payload;
  if (p?.$case === 'task') return { taskId: p.value.id, contextId: p.value.contextId, state: p.value.status?.state };
  if (p?.$case === 'statusUpdate') return { taskId: p.value.taskId, contextId: p.value.contextId, state: p.value.status?.state };
  return {};
}

/** Deploy with one approval: a streamed SendMessage, approved the instant AUTH_REQUIRED shows. */
export async function deploy(c: A2AClient, approve: (taskId: string) => Promise<void>): Promise<DeployTimes> {
  let taskId = '';
  let approvedAt = 0;
  let resumedAt = 0;
  for await (const ev of c.sendMessageStream({ tenant: '', message: userMessage(DEPLOY), configuration: undefined, metadata: undefined })) {
    const f = frameOf(ev);
    const state = f.state;
    if (f.taskId) taskId = f.taskId;
    if (approvedAt && !resumedAt) resumedAt = Date.now();
    if (state === TaskState.TASK_STATE_AUTH_REQUIRED && !approvedAt) {
      approvedAt = Date.now();
      await approve(taskId);
    }
    if (state === TaskState.TASK_STATE_COMPLETED) return { taskId, approvedAt, resumedAt, completedAt: Date.now() };
    if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_REJECTED) throw new Error(`deploy ended ${state}`);
  }
  throw new Error('deploy: the stream ended before COMPLETED');
}

/** An instant task: one blocking SendMessage that completes at once. */
export async function instant(c: A2AClient): Promise<void> {
  const t = asTask(await send(c, userMessage(DIFF)), 'instant');
  if (t.status!.state !== TaskState.TASK_STATE_COMPLETED) throw new Error(`instant: expected COMPLETED, got ${t.status!.state}`);
}
