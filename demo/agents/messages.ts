/**
 * Builders for the SDK's in-memory (ts-proto) shapes. These are not the wire
 * JSON: enums are numbers and parts use `content.$case`; the SDK's codecs turn
 * them into v1.0 ProtoJSON on the way out.
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent, type RequestContext } from '@a2a-js/sdk/server';

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

export function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined };
}

export function agentMessage(taskId: string, contextId: string, text: string, extraParts: Part[] = []): Message {
  return {
    messageId: randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text), ...extraParts],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text parts of a message joined by newlines (data and file parts are ignored). */
export function textOf(message: Message): string {
  return message.parts
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n');
}

/** The first event of a brand-new task; the SDK refuses a stream that starts with anything else. */
export function submittedTask(ctx: RequestContext): Task {
  return {
    id: ctx.taskId,
    contextId: ctx.contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [ctx.userMessage],
    metadata: {},
  };
}

export function statusEvent(
  taskId: string,
  contextId: string,
  state: TaskState,
  text: string,
  extraParts: Part[] = [],
): AgentExecutionEvent {
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: { state, message: agentMessage(taskId, contextId, text, extraParts), timestamp: new Date().toISOString() },
    metadata: {},
  });
}

export function artifactEvent(
  taskId: string,
  contextId: string,
  artifact: { name: string; description: string; data?: Record<string, unknown>; parts?: Part[] },
): AgentExecutionEvent {
  return AgentEvent.artifactUpdate({
    taskId,
    contextId,
    append: false,
    lastChunk: true,
    metadata: {},
    artifact: {
      artifactId: randomUUID(),
      name: artifact.name,
      description: artifact.description,
      parts: artifact.parts ?? [dataPart(artifact.data ?? {})],
      metadata: undefined,
      extensions: [],
    },
  });
}
