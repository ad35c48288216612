// The floor (docs/benchmarks.md, "The floor"): the seed scenario, the resume burst and instant tasks
// run by the least Temporal code of the planner's shape (workflow.ts), in a worker process of its
// own, beside the planner and the plain client in the same run. What it adds to the plain client is
// what Temporal's shape costs on this machine; what the planner adds to it is what the planner's
// own promises cost.
import { Client, type WorkflowHandle } from '@temporalio/client';
import { join } from 'node:path';
import type { AgentHandle } from '../../demo/agents';
import { spawnReady } from '../../worker/child-process';
import { withWorkerAllocator } from '../../worker/allocator';
import { DEPLOY, DIFF } from '../lib/baseline';
import { FLOOR_NAMESPACE, type BenchEnv } from '../lib/env';
import { floorAnswerUpdate } from './messages';
import { FloorPlanWorkflow, FloorTaskWorkflow, type FloorShape } from './workflow';

const QUEUE = 'floor';

export interface Floor {
  /** The floor worker's process, for its CPU. */
  pid: number;
  /** One task to its end (the bot answers and approves: `onAlert`); throws unless it completed. */
  task(workflowId: string, agent: AgentHandle, text: string, shape?: FloorShape): Promise<WorkflowHandle>;
  /**
   * One seed run: the review, then the deploy; its window and its two workflow ids. With `promises`,
   * each task shows its wait and has the events of the planner's other promises (workflow.ts).
   */
  run(i: number, reviewer: AgentHandle, deployer: AgentHandle, tag: string, shape?: FloorShape): Promise<{ t0: number; t1: number; ids: [string, string] }>;
  /**
   * The same two tasks as the children of one workflow, as the seed plan runs them; its window and
   * its children's ids. With `showWaits`, the plan shows what waits on whom; with `promises` as well,
   * its history has the events of the planner's other promises (workflow.ts).
   */
  runPlan(i: number, reviewer: AgentHandle, deployer: AgentHandle, tag: string, shape?: FloorShape): Promise<{ t0: number; t1: number; ids: [string, string] }>;
  /** The bot's part for the floor's alerts (workflow ids `floor-…`): answer "main", approve; false for others. */
  onAlert(a: { kind: string; workflowId: string; taskId: string }): boolean;
  stop(): Promise<void>;
}

export async function startFloor(env: BenchEnv): Promise<Floor> {
  const worker = await spawnReady(join('bench', 'floor', 'worker.ts'), withWorkerAllocator({ ...process.env, FLOOR_TEMPORAL_ADDRESS: env.server.address, FLOOR_NAMESPACE, FLOOR_ALERT_URL: env.bot.url, FLOOR_TASK_QUEUE: QUEUE }), 'floor worker running');
  worker.child.stdout!.resume();
  worker.child.stderr!.on('data', (b: Buffer) => {
    const s = b.toString();
    if (/\[(WARN|ERROR)\]|Error/.test(s)) process.stderr.write(`floor worker: ${s}`);
  });
  // The default data converter, as the floor's worker has: the planner's client encodes for its own.
  const client = new Client({ connection: env.client.connection, namespace: FLOOR_NAMESPACE });
  const approvers = new Map<string, AgentHandle>();
  const task = async (workflowId: string, agent: AgentHandle, text: string, shape: FloorShape = {}): Promise<WorkflowHandle> => {
    approvers.set(workflowId, agent);
    try {
      const h = await client.workflow.start(FloorTaskWorkflow, { taskQueue: QUEUE, workflowId, args: [{ agentUrl: agent.baseUrl, text, ...shape }] });
      const state = await h.result();
      if (state !== 'TASK_STATE_COMPLETED') throw new Error(`floor ${workflowId} ended ${state}`);
      return h;
    } finally {
      approvers.delete(workflowId);
    }
  };
  return {
    pid: worker.pid,
    task,
    async run(i, reviewer, deployer, tag, shape = {}) {
      const t0 = Date.now();
      const kind = shape.promises ? 'promised-' : '';
      const ids: [string, string] = [`floor-${kind}review-${tag}-${i}-${t0}`, `floor-${kind}deploy-${tag}-${i}-${t0}`];
      await task(ids[0], reviewer, DIFF, shape);
      await task(ids[1], deployer, DEPLOY, shape);
      return { t0, t1: Date.now(), ids };
    },
    async runPlan(i, reviewer, deployer, tag, shape = {}) {
      const t0 = Date.now();
      const workflowId = `floor-${shape.promises ? 'promised-plan' : shape.showWaits ? 'shown-plan' : 'plan'}-${tag}-${i}-${t0}`;
      const ids: [string, string] = [`${workflowId}.review`, `${workflowId}.deploy`];
      approvers.set(ids[1], deployer);
      try {
        const steps = [{ id: 'review', agentUrl: reviewer.baseUrl, text: DIFF }, { id: 'deploy', agentUrl: deployer.baseUrl, text: DEPLOY }];
        const state = await client.workflow.execute(FloorPlanWorkflow, { taskQueue: QUEUE, workflowId, args: [{ steps, ...shape }] });
        if (state !== 'TASK_STATE_COMPLETED') throw new Error(`floor plan ${workflowId} ended ${state}`);
      } finally {
        approvers.delete(ids[1]);
      }
      return { t0, t1: Date.now(), ids };
    },
    onAlert(a) {
      if (!a.workflowId.startsWith('floor-')) return false;
      if (a.kind === 'input') void client.workflow.getHandle(a.workflowId).executeUpdate(floorAnswerUpdate, { args: ['main'] }).catch((e: unknown) => console.error(`floor answer ${a.workflowId}: ${String(e)}`));
      else void approvers.get(a.workflowId)?.approve(a.taskId).catch((e: unknown) => console.error(`floor approve ${a.taskId}: ${String(e)}`));
      return true;
    },
    stop: () => worker.stop(),
  };
}
