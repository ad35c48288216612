// What the outside sees of a running plan, refreshed each time the main loop settles: its search
// attributes (PlanId, PlannerWaitingOn, and for an A2A task its state and since when), the Temporal
// UI's current details (one line per step, what waits on whom), and for a plan served as an A2A
// task, the task's status record and the push notifications of what changed.
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PlanTaskRecord } from './a2a-task';
import type { PlanPushRecord } from './a2a-push';
import type { PlanStatus } from './messages';
import type { PlanRunState } from './state';
import { A2aTaskState, PlanId, PlannerWaitingOn, PlannerWaitingSince, fitted } from '../search-attributes';

/** The plan as the Temporal UI's current details show it: one line per step, what waits on whom. */
export function renderPlanDetails(plan: PlanStatus): string {
  const done = plan.steps.filter((step) => step.state === 'completed').length;
  const lines = plan.steps.map((step) => {
    const head = `- **${step.id}** (${step.agent}): `;
    if (step.state === 'pending') return `${head}pending${step.dependsOn.length ? ` (after ${step.dependsOn.join(', ')})` : ''}`;
    if (step.state !== 'running') return `${head}${step.state}${step.reason ? `: ${step.reason}` : ''}`;
    const child = step.workflowId ? ` — task workflow \`${step.workflowId}\`` : '';
    if (step.waitingOn === 'human') {
      const refused = step.refusedAnswer ? `\n  Last answer refused${step.refusedAnswer.from ? ` (${step.refusedAnswer.from})` : ''}: ${step.refusedAnswer.reason}` : '';
      return `${head}**waiting on a human** (question turn ${step.turn}):\n  > ${step.text ?? ''}\n  Answer: \`planner answer ${plan.planId} ${step.id} <text>\`${child}${refused}`;
    }
    if (step.waitingOn === 'operator') return `${head}**waiting on an operator**:\n  > ${step.text ?? ''}${child}`;
    return `${head}${step.remoteState ?? 'starting'}${child}`;
  });
  return `**Plan ${plan.name}**: ${plan.state}, ${done} of ${plan.steps.length} steps completed\n\n${lines.join('\n')}`;
}

/** Publishes the plan: upserts only when the details changed or the A2A task recorded a status. */
export class PlanPublisher {
  /** The details last published. */
  private published = '';

  constructor(
    private readonly plan: PlanRunState,
    private readonly task?: PlanTaskRecord,
    private readonly push?: PlanPushRecord,
  ) {}

  publish(): void {
    const details = renderPlanDetails(this.plan.status());
    // A plan served as an A2A task records its state; a change travels in the same upsert.
    const added = this.task?.record() ?? [];
    if (this.task && this.push) this.push.notifyTask(this.task.a2a.contextId, this.task.artifacts(), added);
    const moved = added.length > 0;
    if (details === this.published && !moved) return;
    this.published = details;
    const { task } = this;
    upsertSearchAttributes(fitted([
      { key: PlanId, value: this.plan.planId },
      { key: PlannerWaitingOn, value: this.plan.waitingOn() },
      ...(task ? [{ key: A2aTaskState, value: task.status.state }, { key: PlannerWaitingSince, value: new Date(task.status.timestamp!) }] : []),
    ]));
    setCurrentDetails(details);
  }
}
