// Turns what an agent says (Task snapshots, stream frames) into the workflow's small Observation:
// no history, only status, text and artifacts, so that payloads stay small.
import type { Message, StreamResponse, Task, TaskStatus } from '../a2a';
import type { Observation } from '../workflows/delegated-task/messages';

export function messageText(message: Message | undefined): string | undefined {
  if (!message) return undefined;
  const texts = message.parts.flatMap((p) => ('text' in p && typeof p.text === 'string' ? [p.text] : []));
  return texts.length ? texts.join('\n') : undefined;
}

const observeStatus = (s: TaskStatus): Observation['status'] => ({ state: s.state, timestamp: s.timestamp, text: messageText(s.message) });

export function observeTask(task: Task, source: Observation['source']): Observation {
  return { source, taskId: task.id, contextId: task.contextId, status: observeStatus(task.status), artifacts: task.artifacts ?? [] };
}

/** Returns undefined for frames that say nothing about the task (a bare message). */
export function observeFrame(frame: StreamResponse, source: Observation['source']): Observation | undefined {
  if ('task' in frame && frame.task) return observeTask(frame.task, source);
  if ('statusUpdate' in frame && frame.statusUpdate) {
    const u = frame.statusUpdate;
    return { source, taskId: u.taskId, contextId: u.contextId, status: observeStatus(u.status) };
  }
  if ('artifactUpdate' in frame && frame.artifactUpdate) {
    const u = frame.artifactUpdate;
    return {
      source,
      taskId: u.taskId,
      contextId: u.contextId,
      artifactUpdate: { artifact: u.artifact, append: u.append ?? false, lastChunk: u.lastChunk ?? false },
    };
  }
  return undefined;
}
