/**
 * The seed's code-reviewer and deployer written for @a2a-js/sdk 0.3.14 (A2A v0.3, the dev alias
 * `a2a-sdk-v03`), behaving like the v1.0 ones in demo/agents/: the reviewer asks before it works
 * (`input-required`, the executor returns), the deployer waits for an out-of-band approval
 * (`auth-required` published with `final: false`, so the SDK keeps the task's stream open and
 * keeps storing its events while the executor waits, as its v1.0 twin does).
 */
import { randomUUID } from 'node:crypto';
import type { Message, Part, TaskState } from 'a2a-sdk-v03';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-v03/server';

// The words of the v1.0 agents (demo/agents/code-reviewer.ts, deployer.ts), which the suites compare;
// copied, not imported, since those modules load @a2a-js/sdk 1.3.0 and this child loads only 0.3.14.
const QUESTIONS = ['Which base branch should I compare this diff against?', 'Should I also check the migration files? (yes/no)'];
const reviewerQuestion = (i: number): string => QUESTIONS[i] ?? `Anything else I should know before reviewing? (question ${i + 1})`;
const parseVersion = (text: string): string => /\b(?:build|version)\s+v?([0-9][0-9A-Za-z.+-]*)/i.exec(text)?.[1]?.replace(/[.+-]+$/, '') ?? 'unknown';

function textOf(m: Message): string {
  return m.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n');
}

function status(bus: ExecutionEventBus, ctx: { taskId: string; contextId: string }, state: TaskState, text: string, final: boolean, extra: Part[] = []): void {
  const message: Message = { kind: 'message', messageId: randomUUID(), role: 'agent', taskId: ctx.taskId, contextId: ctx.contextId, parts: [{ kind: 'text', text }, ...extra] };
  bus.publish({ kind: 'status-update', taskId: ctx.taskId, contextId: ctx.contextId, status: { state, message, timestamp: new Date().toISOString() }, final });
}

function artifact(bus: ExecutionEventBus, ctx: { taskId: string; contextId: string }, name: string, data: Record<string, unknown>): void {
  bus.publish({ kind: 'artifact-update', taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: randomUUID(), name, parts: [{ kind: 'data', data }] }, lastChunk: true });
}

/** A new task's first event; the SDK wants a task before any update. */
function publishTask(bus: ExecutionEventBus, ctx: RequestContext): void {
  bus.publish(
    ctx.task ?? { kind: 'task', id: ctx.taskId, contextId: ctx.contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [ctx.userMessage] },
  );
}

export class CodeReviewerV03 implements AgentExecutor {
  private readonly answers = new Map<string, string[]>();

  constructor(private readonly questions: number) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    publishTask(bus, ctx);
    const answers = ctx.task ? [...(this.answers.get(ctx.taskId) ?? []), textOf(ctx.userMessage)] : [];
    if (answers.length < this.questions) {
      this.answers.set(ctx.taskId, answers);
      status(bus, ctx, 'input-required', reviewerQuestion(answers.length), true);
      bus.finished();
      return;
    }
    this.answers.delete(ctx.taskId);
    const baseBranch = answers[0]?.trim() || 'main';
    status(bus, ctx, 'working', `Reviewing against ${baseBranch}`, false);
    const comments = [{ severity: 'suggestion', body: 'Consider adding a unit test that covers this change.' }];
    if (answers[1]) comments.push({ severity: 'info', body: `Migration files checked: ${answers[1].trim()}` });
    artifact(bus, ctx, 'review.json', { baseBranch, verdict: 'approve', comments });
    status(bus, ctx, 'completed', 'Review complete', true);
    bus.finished();
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.answers.delete(taskId);
    status(bus, { taskId, contextId: '' }, 'canceled', 'Review canceled', true);
    bus.finished();
  };
}

interface Run {
  contextId: string;
  release?: (approved: boolean) => void;
}

export class DeployerV03 implements AgentExecutor {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly baseUrl: string,
    private readonly authRounds: number,
  ) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    publishTask(bus, ctx);
    if (ctx.task) {
      status(bus, ctx, 'failed', 'No deployment is running for this task', true);
      bus.finished();
      return;
    }
    const run: Run = { contextId: ctx.contextId };
    this.runs.set(ctx.taskId, run);
    try {
      status(bus, ctx, 'working', 'Preparing deployment', false);
      for (let round = 1; round <= this.authRounds; round++) {
        const approvalUrl = `${this.baseUrl}/approve/${ctx.taskId}`;
        const suffix = this.authRounds > 1 ? ` (approval ${round} of ${this.authRounds})` : '';
        // Register the waiter before announcing it, so an approval can never arrive first.
        const approved = new Promise<boolean>((resolve) => (run.release = resolve));
        status(bus, ctx, 'auth-required', `An operator must approve this deploy at ${approvalUrl}${suffix}`, false, [{ kind: 'data', data: { approvalUrl } }]);
        const ok = await approved;
        run.release = undefined;
        if (!ok) return;
        status(bus, ctx, 'working', 'Approved; deploying', false);
        await new Promise((r) => setTimeout(r, 20));
      }
      artifact(bus, ctx, 'deploy-result.json', { environment: 'staging', status: 'deployed', version: parseVersion(textOf(ctx.userMessage)) });
      status(bus, ctx, 'completed', 'Deployment complete', true);
      bus.finished();
    } finally {
      this.runs.delete(ctx.taskId);
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const run = this.runs.get(taskId);
    status(bus, { taskId, contextId: run?.contextId ?? '' }, 'canceled', 'Deployment canceled', true);
    bus.finished();
    run?.release?.(false);
  };

  approve(taskId: string): boolean {
    const release = this.runs.get(taskId)?.release;
    if (!release) return false;
    release(true);
    return true;
  }

  shutdown(): void {
    for (const run of this.runs.values()) run.release?.(false);
  }
}
