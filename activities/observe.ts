// Turns what an agent says (Task snapshots, stream frames) into the workflow's small Observation:
// no history, only status, text and artifacts, so that payloads stay small. It is also the edge
// where an agent's texts are bounded before a workflow sees them (a2a/remote-text.ts): the status
// text, its timestamp and each artifact's name and description. Artifacts' parts stay whole: they
// are data, and the payload codec carries them however large.
import {
  ARTIFACT_LABEL_MAX,
  STATUS_TEXT_MAX,
  TIMESTAMP_MAX,
  boundRemoteText,
  type Artifact,
  type Message,
  type StreamResponse,
  type Task,
  type TaskStatus,
} from '../a2a';
import type { Observation } from '../workflows/delegated-task/messages';

/** A message's text parts joined: whole (a Message reply is the answer itself, data like an artifact). */
export function messageText(message: Message | undefined): string | undefined {
  if (!message) return undefined;
  const texts = message.parts.flatMap((p) => ('text' in p && typeof p.text === 'string' ? [p.text] : []));
  return texts.length ? texts.join('\n') : undefined;
}

/** A status message's text as a workflow holds it: at most STATUS_TEXT_MAX characters, no long whitespace runs. */
export function statusText(message: Message | undefined): string | undefined {
  const text = messageText(message);
  return text === undefined ? undefined : boundRemoteText(text, STATUS_TEXT_MAX);
}

function observeStatus(s: TaskStatus): NonNullable<Observation['status']> {
  const timestamp = s.timestamp === undefined ? undefined : s.timestamp.slice(0, TIMESTAMP_MAX);
  return { state: s.state, timestamp, text: statusText(s.message) };
}

/** An artifact with its name and description bounded; parts untouched (the same object when nothing is cut). */
export function boundArtifact(a: Artifact): Artifact {
  const long = (v: string | undefined): boolean => v !== undefined && v.length > ARTIFACT_LABEL_MAX;
  if (!long(a.name) && !long(a.description)) return a;
  const bounded = { ...a };
  if (a.name !== undefined) bounded.name = boundRemoteText(a.name, ARTIFACT_LABEL_MAX);
  if (a.description !== undefined) bounded.description = boundRemoteText(a.description, ARTIFACT_LABEL_MAX);
  return bounded;
}

export function observeTask(task: Task, source: Observation['source']): Observation {
  return { source, taskId: task.id, contextId: task.contextId, status: observeStatus(task.status), artifacts: (task.artifacts ?? []).map(boundArtifact) };
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
      artifactUpdate: { artifact: boundArtifact(u.artifact), append: u.append ?? false, lastChunk: u.lastChunk ?? false },
    };
  }
  return undefined;
}
