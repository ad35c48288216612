// What a person sees while a plan runs: one line per step and change of state, the question or the
// approval text when a step waits (with the command that answers it), then the artifacts.
import type { Artifact } from '../a2a/schema';
import { artifactText } from '../workflows/plan/template';
import type { StepStatus } from '../workflows/plan/messages';
import type { PlanSnapshot } from './plan';

/** A step's state as one comparable, printable phrase. */
function phrase(st: StepStatus): string {
  if (st.state !== 'running') return st.state;
  if (st.waitingOn === 'human') return `waiting on a human (question ${st.turn})`;
  if (st.waitingOn === 'operator') return 'waiting on an operator (approval)';
  return st.remoteState ? `running (${st.remoteState.replace('TASK_STATE_', '').toLowerCase()})` : 'starting';
}

/** A question or an approval: what a person must act on (a wait on the agent is its state). */
const onPerson = (st: StepStatus): boolean => st.waitingOn === 'human' || st.waitingOn === 'operator';

/** The lines that describe what changed between two snapshots of a plan (all of it when `prev` is undefined). */
export function transitions(prev: PlanSnapshot | undefined, next: PlanSnapshot, at: Date = new Date()): string[] {
  const time = at.toISOString().slice(11, 19);
  const width = Math.max(4, ...(next.steps ?? []).map((s) => s.id.length));
  const lines: string[] = [];
  for (const st of next.steps ?? []) {
    const before = prev?.steps?.find((p) => p.id === st.id);
    const now = phrase(st);
    const question = onPerson(st) ? `${st.turn}:${st.text ?? ''}` : '';
    const beforeQuestion = before && onPerson(before) ? `${before.turn}:${before.text ?? ''}` : '';
    if (before && phrase(before) === now && question === beforeQuestion) continue;
    if (!before && st.state === 'pending') {
      lines.push(`${time}  ${st.id.padEnd(width)}  pending${st.dependsOn.length ? ` (after ${st.dependsOn.join(', ')})` : ''}`);
      continue;
    }
    let line = `${time}  ${st.id.padEnd(width)}  ${now}`;
    if (st.state === 'completed' && st.artifacts?.length) line += `: ${st.artifacts.join(', ')}`;
    else if ((st.state === 'failed' || st.state === 'cancelled' || st.state === 'skipped') && st.reason) line += `: ${st.reason}`;
    lines.push(line);
    if (st.waitingOn === 'human') {
      lines.push(`${' '.repeat(width + 12)}${st.agent} asks: ${st.text ?? ''}`);
      lines.push(`${' '.repeat(width + 12)}answer: planner answer ${next.planId} ${st.id} '<text>'`);
    } else if (st.waitingOn === 'operator') {
      lines.push(`${' '.repeat(width + 12)}${st.agent}: ${st.text ?? ''}`);
    }
  }
  return lines;
}

/** A closed plan's outcome and artifacts, for the end of `planner run --wait` and `planner demo`. */
export function outcome(s: PlanSnapshot, uiUrl?: string): string[] {
  const lines: string[] = [];
  const result = s.result;
  const ok = s.workflowStatus === 'COMPLETED';
  lines.push(ok ? `plan ${s.planId} completed` : `plan ${s.planId} ${s.workflowStatus.toLowerCase()}${s.failure ? `: ${s.failure}` : ''}`);
  for (const step of result?.steps ?? []) {
    for (const a of step.artifacts) lines.push(...artifactLines(step.id, a));
  }
  if (uiUrl) lines.push(`Temporal UI: ${uiUrl}`);
  return lines;
}

function artifactLines(stepId: string, a: Artifact): string[] {
  const text = artifactText(a);
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON: shown as it is
  }
  const body = shown.length > 2000 ? `${shown.slice(0, 2000)}… (${shown.length} characters; planner artifacts writes it whole)` : shown;
  return [`artifact ${stepId}/${a.name ?? a.artifactId}:`, ...body.split('\n').map((l) => `  ${l}`)];
}
