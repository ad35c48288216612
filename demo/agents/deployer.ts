/**
 * An agent that stops for an operator: AUTH_REQUIRED while its executor keeps
 * running, resumed by a plain POST /approve/<taskId> outside A2A.
 */
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { skill } from './card';
import { artifactEvent, dataPart, statusEvent, submittedTask, textOf } from './messages';
import type { AgentSpec } from './server';

/** Short pauses so a stream shows WORKING and the next state as separate, observable steps. */
const STEP_MS = 20;

type Outcome = 'approved' | 'canceled' | 'shutdown';

interface Run {
  contextId: string;
  stopped: boolean;
  /** Resolves the pending approval, if the run is waiting for one. */
  release?: (outcome: Outcome) => void;
  /** The AUTH_REQUIRED status text and approval URL currently shown, for follow-up turns. */
  pending?: { text: string; approvalUrl: string };
  done: Promise<void>;
}

/** "build 2026.10.06-1" or "version 1.2.3" in the request, else 'unknown'. */
export function parseVersion(text: string): string {
  const match = /\b(?:build|version)\s+v?([0-9][0-9A-Za-z.+-]*)/i.exec(text);
  return match?.[1]?.replace(/[.+-]+$/, '') ?? 'unknown';
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class Deployer implements AgentExecutor {
  private readonly runs = new Map<string, Run>();
  private shuttingDown = false;

  constructor(
    private readonly baseUrl: string,
    private readonly authRounds: number,
    /** Simulated work added to each step (benchmarks): before each approval request and before the result. */
    private readonly workMs: number = 0,
    /** Every round asks in the same words, as agents that do not number their rounds do. */
    private readonly sameText = false,
    /** Appended to every approval request: the long status texts some agents send. */
    private readonly note = '',
  ) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const existing = this.runs.get(ctx.taskId);
    // A message to a task whose run is live shares that run's bus with the stream that started it
    // (the SDK keeps it open through AUTH_REQUIRED): a second Task event there breaks that stream
    // ("Stream ordering violation"), so a follow-up restates the wait as a status only.
    if (ctx.task && existing) return this.followUp(ctx.taskId, existing, bus);
    bus.publish(AgentEvent.task(ctx.task ?? submittedTask(ctx)));
    if (ctx.task) {
      bus.publish(statusEvent(ctx.taskId, ctx.contextId, TaskState.TASK_STATE_FAILED, 'No deployment is running for this task'));
      return;
    }
    let finish = (): void => undefined;
    const run: Run = { contextId: ctx.contextId, stopped: false, done: new Promise<void>((r) => (finish = r)) };
    this.runs.set(ctx.taskId, run);
    try {
      await this.deploy(ctx.taskId, run, textOf(ctx.userMessage), bus);
    } finally {
      this.runs.delete(ctx.taskId);
      finish();
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const run = this.runs.get(taskId);
    if (run) run.stopped = true;
    bus.publish(statusEvent(taskId, run?.contextId ?? '', TaskState.TASK_STATE_CANCELED, 'Deployment canceled'));
    run?.release?.('canceled');
  };

  approve(taskId: string): boolean {
    const release = this.runs.get(taskId)?.release;
    if (!release) return false;
    release('approved');
    return true;
  }

  shutdown(): void {
    this.shuttingDown = true;
    for (const run of this.runs.values()) {
      run.stopped = true;
      run.release?.('shutdown');
    }
  }

  private async deploy(taskId: string, run: Run, request: string, bus: ExecutionEventBus): Promise<void> {
    const { contextId } = run;
    const publishing = () => !run.stopped && !this.shuttingDown;
    bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_WORKING, 'Preparing deployment'));
    await delay(STEP_MS + this.workMs);

    for (let round = 1; round <= this.authRounds; round++) {
      if (!publishing()) return;
      const approvalUrl = `${this.baseUrl}/approve/${taskId}`;
      const suffix = this.authRounds > 1 && !this.sameText ? ` (approval ${round} of ${this.authRounds})` : '';
      const text = `An operator must approve this deploy at ${approvalUrl}${suffix}${this.note}`;
      // Register the waiter before announcing it, so an approval can never arrive first.
      const outcome = new Promise<Outcome>((resolve) => (run.release = resolve));
      run.pending = { text, approvalUrl };
      bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_AUTH_REQUIRED, text, [dataPart({ approvalUrl })]));
      const result = await outcome;
      run.release = undefined;
      run.pending = undefined;
      if (result !== 'approved' || !publishing()) return;
      bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_WORKING, 'Approved; deploying'));
      await delay(STEP_MS + this.workMs);
    }

    if (!publishing()) return;
    bus.publish(
      artifactEvent(taskId, contextId, {
        name: 'deploy-result.json',
        description: 'Deployment result',
        data: { environment: 'staging', status: 'deployed', version: parseVersion(request) },
      }),
    );
    bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_COMPLETED, 'Deployment complete'));
  }

  /**
   * A message to a task whose deployment is still running: restate what it is
   * waiting for, then stay in execute() until the run ends. Returning early
   * would let the SDK settle (and tear down) the bus the run still publishes on.
   */
  private async followUp(taskId: string, run: Run, bus: ExecutionEventBus): Promise<void> {
    if (run.pending) {
      const { text, approvalUrl } = run.pending;
      bus.publish(statusEvent(taskId, run.contextId, TaskState.TASK_STATE_AUTH_REQUIRED, text, [dataPart({ approvalUrl })]));
    }
    await run.done;
  }
}

export function deployerSpec(authRounds: number, workMs = 0, sameText = false, note = ''): AgentSpec {
  return {
    name: 'deployer',
    description: 'Deploys a build to staging after an operator approves it out of band.',
    skills: [
      skill('deploy', 'Deploy', 'Deploys a build to staging; needs operator approval', [
        'Deploy build 2026.10.06-1 to staging',
      ]),
    ],
    createBehaviour: ({ baseUrl }) => {
      const deployer = new Deployer(baseUrl, authRounds, workMs, sameText, note);
      return {
        executor: deployer,
        approve: (taskId) => deployer.approve(taskId),
        shutdown: () => deployer.shutdown(),
      };
    },
  };
}
