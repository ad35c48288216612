// Sends one message (the first one, or an answer on the same task) with a messageId derived from the
// workflow, so a retry resends the same id. A retry first reconciles: the earlier attempt may have
// reached the agent even though its reply never reached us.
import { Context, log } from '@temporalio/activity';
import { isTerminal, UnsupportedOperationError, type A2AClient, type Message, type Part, type SendMessageResponse, type Task } from '../a2a';
import type { AgentRef } from '../workflows/delegated-task-input';
import type { Observation } from '../workflows/delegated-task-messages';
import type { AgentDirectory } from './agents';
import { withTypedFailures } from './failures';
import { messageText, observeTask } from './observe';

export interface SendInput {
  agent: AgentRef;
  messageId: string;
  message: { text?: string; data?: unknown; contextId?: string; referenceTaskIds?: string[] };
  /** Set for an answer: the task and context it continues. */
  taskId?: string;
  contextId?: string;
  /** The question being answered, to tell whether the task has moved on since. */
  question?: { timestamp?: string; text?: string };
  timeoutMs: number;
}

export interface SendOutcome {
  observation?: Observation;
  /** A Message reply: the whole answer, no task. */
  message?: Message;
  text?: string;
  /** True when a retry found the message already delivered and sent nothing. */
  reconciled?: boolean;
}

const HEARTBEAT_MS = 5_000;
const RECONCILE_WINDOW_MS = 10 * 60_000;

export function createSendMessage(agents: AgentDirectory) {
  return async function sendMessage(input: SendInput): Promise<SendOutcome> {
    return withTypedFailures(async () => {
      const ctx = Context.current();
      const client = await agents.client(input.agent);
      if (ctx.info.attempt > 1) {
        const found = await reconcile(client, input, ctx.info.scheduledTimestampMs);
        if (found) {
          log.info('earlier attempt reached the agent; not sending again', { messageId: input.messageId, taskId: found.id });
          return { observation: observeTask(found, 'get'), reconciled: true };
        }
      }
      const ticker = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
      try {
        const reply = await client.sendMessage(
          { message: toMessage(input), configuration: { historyLength: 0 } },
          { signal: ctx.cancellationSignal, timeoutMs: input.timeoutMs },
        );
        return outcome(reply);
      } catch (err) {
        // A follow-up refused because the task ended meanwhile: report where it ended, never retry blindly.
        if (input.taskId && err instanceof UnsupportedOperationError) {
          const task = await client.getTask({ id: input.taskId, historyLength: 0 });
          if (isTerminal(task.status.state)) return { observation: observeTask(task, 'get') };
        }
        throw err;
      } finally {
        clearInterval(ticker);
      }
    });
  };
}

function toMessage(input: SendInput): Message {
  const parts: Part[] = [];
  if (input.message.text !== undefined) parts.push({ text: input.message.text });
  if (input.message.data !== undefined) parts.push({ data: input.message.data, mediaType: 'application/json' });
  return {
    messageId: input.messageId,
    role: 'ROLE_USER',
    parts,
    ...(input.taskId ? { taskId: input.taskId } : {}),
    ...((input.contextId ?? input.message.contextId) ? { contextId: input.contextId ?? input.message.contextId } : {}),
    ...(input.message.referenceTaskIds?.length ? { referenceTaskIds: input.message.referenceTaskIds } : {}),
  };
}

function outcome(reply: SendMessageResponse): SendOutcome {
  if ('message' in reply && reply.message) return { message: reply.message, text: messageText(reply.message) };
  if ('task' in reply && reply.task) return { observation: observeTask(reply.task, 'send') };
  throw new Error('SendMessage reply has neither task nor message');
}

const hasMessage = (task: Task, messageId: string): boolean => (task.history ?? []).some((m) => m.messageId === messageId);

/** Finds the task an earlier attempt already delivered our message to, if any. */
async function reconcile(client: A2AClient, input: SendInput, scheduledMs: number): Promise<Task | undefined> {
  if (input.taskId) {
    const task = await client.getTask({ id: input.taskId });
    if (hasMessage(task, input.messageId)) return task;
    const movedOn =
      task.status.state !== 'TASK_STATE_INPUT_REQUIRED' ||
      (input.question?.timestamp !== undefined && task.status.timestamp !== input.question.timestamp);
    return movedOn ? task : undefined;
  }
  // A first message: the agent minted the task id, so look for our messageId among recent tasks.
  try {
    let pageToken: string | undefined;
    for (let page = 0; page < 5; page++) {
      const list = await client.listTasks({
        contextId: input.message.contextId,
        statusTimestampAfter: new Date(scheduledMs - RECONCILE_WINDOW_MS).toISOString(),
        pageSize: 100,
        pageToken,
      });
      const hit = list.tasks.find((t) => hasMessage(t, input.messageId));
      if (hit) return hit;
      if (!list.nextPageToken) return undefined;
      pageToken = list.nextPageToken;
    }
  } catch (err) {
    log.warn('cannot reconcile a first message with ListTasks; sending again', { error: String(err) });
  }
  return undefined;
}
