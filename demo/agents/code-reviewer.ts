/** An agent that asks before it works: each question is an INPUT_REQUIRED turn on the same task. */
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { skill } from './card';
import { artifactEvent, statusEvent, submittedTask, textOf } from './messages';
import type { AgentSpec } from './server';

export const BASE_BRANCH_QUESTION = 'Which base branch should I compare this diff against?';
export const MIGRATIONS_QUESTION = 'Should I also check the migration files? (yes/no)';

/** The question asked on turn `index` (0-based); every turn asks something different. */
export function reviewerQuestion(index: number): string {
  if (index === 0) return BASE_BRANCH_QUESTION;
  if (index === 1) return MIGRATIONS_QUESTION;
  return `Anything else I should know before reviewing? (question ${index + 1})`;
}

class CodeReviewer implements AgentExecutor {
  /** Answers so far, per task still waiting for input. */
  private readonly answers = new Map<string, string[]>();
  private readonly contexts = new Map<string, string>();

  constructor(
    private readonly questions: number,
    /** Simulated work before each answer (benchmarks); 0 answers at once. */
    private readonly workMs: number = 0,
    /** Asks the first question on every turn, as an agent that did not like the answer would. */
    private readonly sameQuestion = false,
  ) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    // Follow-up turns publish the stored task too: the SDK wants a task event first on every call.
    bus.publish(AgentEvent.task(ctx.task ?? submittedTask(ctx)));
    this.contexts.set(taskId, contextId);
    // A first message with no diff in it is refused outright, as a real reviewer would.
    if (!ctx.task && !/^[+-]|\s[+-]\S/m.test(textOf(ctx.userMessage))) {
      bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_REJECTED, 'There is no diff in this message to review.'));
      return;
    }

    const answers = ctx.task ? [...(this.answers.get(taskId) ?? []), textOf(ctx.userMessage)] : [];
    if (this.workMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, this.workMs));
    if (answers.length < this.questions) {
      this.answers.set(taskId, answers);
      bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, this.sameQuestion ? BASE_BRANCH_QUESTION : reviewerQuestion(answers.length)));
      return;
    }
    this.forget(taskId);

    const baseBranch = answers[0]?.trim() || 'main';
    if (/\s/.test(baseBranch)) {
      bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_FAILED, `Base branch "${baseBranch}" does not exist.`));
      return;
    }
    bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_WORKING, `Reviewing against ${baseBranch}`));
    const comments = [{ severity: 'suggestion', body: 'Consider adding a unit test that covers this change.' }];
    const migrations = answers[1]?.trim();
    if (migrations) comments.push({ severity: 'info', body: `Migration files checked: ${migrations}` });
    bus.publish(
      artifactEvent(taskId, contextId, {
        name: 'review.json',
        description: 'Code review result',
        data: { baseBranch, verdict: 'approve', comments },
      }),
    );
    bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_COMPLETED, 'Review complete'));
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const contextId = this.contexts.get(taskId) ?? '';
    this.forget(taskId);
    bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_CANCELED, 'Review canceled'));
  };

  private forget(taskId: string): void {
    this.answers.delete(taskId);
    this.contexts.delete(taskId);
  }
}

export function codeReviewerSpec(questions: number, workMs = 0, sameQuestion = false): AgentSpec {
  return {
    name: 'code-reviewer',
    description: 'Reviews a diff; asks which base branch to compare against before it starts.',
    skills: [
      skill('code-review', 'Code review', 'Reviews a diff and returns review.json', [
        'Please review this diff: +const a = 1;',
      ]),
    ],
    createBehaviour: () => ({
      executor: new CodeReviewer(questions, workMs, sameQuestion),
      // Nothing waits between turns: the executor returns at INPUT_REQUIRED.
      shutdown: () => undefined,
    }),
  };
}
