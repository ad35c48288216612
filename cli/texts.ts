// What the CLI prints for a person: a delegated task, a plan and an answer's outcome, each ending
// with the command that comes next. `-o json` prints the same data as JSON instead (docs/cli.md
// gives the shapes); these lines are for reading, not for parsing.
import type { TaskState } from '../a2a/schema';
import type { TaskSnapshot } from '../client/delegated-task';
import type { PlanSnapshot } from '../client/plan';
import type { AnswerResult } from '../workflows/delegated-task/messages';
import { clip, firstLine, table } from './output';

/** TASK_STATE_INPUT_REQUIRED → "input required". */
export function stateWords(state: TaskState | string | undefined): string {
  return (state ?? 'unknown').replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, ' ');
}

function indented(text: string): string[] {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`);
}

/** A delegated task: where it stands, what it waits on, how it ended, what it made; then the next step. */
export function taskText(s: TaskSnapshot): string {
  const lines = [`${s.workflowId}: ${s.agent ?? 'a'} task, workflow ${s.workflowStatus.toLowerCase()}${s.state ? `, the agent's task ${stateWords(s.state)}` : ''}`];
  if (s.planId) lines.push(`  plan ${s.planId}${s.stepId ? `, step ${s.stepId}` : ''}`);
  if (s.taskId) lines.push(`  A2A task ${s.taskId}${s.contextId ? `, context ${s.contextId}` : ''}`);
  if (s.waitingOn === 'human' && s.text) lines.push(`  asks (question ${s.turn}):`, ...indented(s.text));
  else if (s.waitingOn === 'operator' && s.text) lines.push('  waits for an approval:', ...indented(s.text));
  else if (s.text) lines.push('  says:', ...indented(s.text));
  if (s.refusedAnswer) lines.push(`  refused an answer${s.refusedAnswer.turn !== undefined ? ` to question ${s.refusedAnswer.turn}` : ''}: ${s.refusedAnswer.reason}`);
  if (s.failure) lines.push(`  failure: ${s.failure}`);
  for (const a of s.artifacts ?? []) lines.push(`  artifact ${a.name ?? a.artifactId} (${a.bytes} bytes): ${clip(a.preview, 80)}`);
  if (s.statusQueryError) lines.push(`  status query failed: ${s.statusQueryError}`);
  const next = taskNext(s);
  if (next) lines.push(`next: ${next}`);
  return lines.join('\n');
}

function taskNext(s: TaskSnapshot): string | undefined {
  if (s.workflowStatus === 'RUNNING') {
    if (s.waitingOn === 'human') return `planner answer ${s.workflowId} TEXT --turn ${s.turn}`;
    if (s.waitingOn === 'operator') return `approve where the agent says, then planner status ${s.workflowId}`;
    return `planner status ${s.workflowId} (again later), or planner inbox for what waits on you`;
  }
  if (s.workflowStatus === 'COMPLETED' && (s.artifacts?.length ?? 0) > 0) return `planner artifacts ${s.workflowId} --out DIR`;
  return undefined;
}

/** A plan: its state, a table of its steps, what it waits on; then the next step. */
export function planText(s: PlanSnapshot): string {
  const state = s.state ?? s.result?.state ?? s.workflowStatus.toLowerCase();
  const lines = [`plan ${s.planId}${s.name ? ` (${s.name})` : ''}: ${state}, workflow ${s.workflowStatus.toLowerCase()}`];
  const steps = s.steps ?? [];
  if (steps.length > 0) {
    const rows = steps.map((step) => {
      const wait = step.waitingOn === 'human' ? `asks (question ${step.turn}): ` : step.waitingOn === 'operator' ? 'waits for an approval: ' : '';
      const said = step.reason ?? firstLine(step.text ?? '');
      return [step.id, step.agent, step.state === 'running' && step.remoteState ? `running (${stateWords(step.remoteState)})` : step.state, clip(`${wait}${said}`, 100) || '-'];
    });
    lines.push(...table(['STEP', 'AGENT', 'STATE', 'WAITS / SAYS'], rows).split('\n').map((l) => `  ${l}`));
  }
  if (s.failure) lines.push(`  failure: ${s.failure}`);
  if (s.statusQueryError) lines.push(`  status query failed: ${s.statusQueryError}`);
  const asking = steps.find((step) => step.waitingOn === 'human');
  if (s.workflowStatus === 'RUNNING' && asking) lines.push(`next: planner answer ${s.planId} ${asking.id} TEXT`);
  else if (s.workflowStatus === 'RUNNING') lines.push(`next: planner status ${s.planId} (again later), or planner inbox for what waits on you`);
  else if (steps.some((step) => step.state === 'completed')) lines.push(`next: planner artifacts ${s.planId} --out DIR`);
  return lines.join('\n');
}

/** Where an answer went: `planner answer PLAN STEP` or `planner answer WORKFLOW_ID`. */
export type AnswerTarget = { planId: string; stepId: string } | { workflowId: string };

/** The answer that went, the state the agent is in after it, and the next step. */
export function answerText(target: AnswerTarget, result: AnswerResult): string {
  const where = 'planId' in target ? `step ${target.stepId} of plan ${target.planId}` : target.workflowId;
  const ids = 'planId' in target ? `${target.planId} ${target.stepId}` : target.workflowId;
  const status = 'planId' in target ? `planner status ${target.planId}` : `planner status ${target.workflowId}`;
  const lines = [`answered question ${result.turn} of ${where}`, `the agent's task is now ${stateWords(result.state)}${result.text ? ':' : ''}`];
  if (result.text) lines.push(...indented(result.text));
  switch (result.state) {
    case 'TASK_STATE_INPUT_REQUIRED':
      lines.push(`next: planner answer ${ids} TEXT (the agent asks again)`);
      break;
    case 'TASK_STATE_AUTH_REQUIRED':
      lines.push(`next: approve where the agent says, then ${status}`);
      break;
    case 'TASK_STATE_COMPLETED':
      lines.push(`next: ${'planId' in target ? `${status} (the plan goes on)` : `planner artifacts ${target.workflowId} --out DIR`}`);
      break;
    default:
      lines.push(`next: ${status}`);
  }
  return lines.join('\n');
}
