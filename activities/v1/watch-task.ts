// FROZEN: the v1 watch (activity `watchTask`), kept for v1 workflows still open: they schedule it by
// name and expect its v1 contract (every frame signalled, the last one also returned). New runs use
// `watchRemoteTask` (activities/watch-task.ts).
// Watches a remote task and passes what it sees to the workflow as `observe` signals. It holds a
// SubscribeToTask stream, or polls GetTask for agents that cannot stream. A closed stream never ends
// the watch: GetTask, then subscribe again. It returns when the workflow must act: the task is
// terminal or asks a new question (INPUT_REQUIRED holds no activity while a human thinks).
import { Context, log } from '@temporalio/activity';
import { CancelledFailure, type Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { A2AError, UnsupportedOperationError, isTerminal, type A2AClient, type TaskState } from '../../a2a';
import type { AgentRef, WatchPolicy } from '../../workflows/delegated-task/input';
import { observeSignal, type Observation } from '../../workflows/delegated-task/messages';
import type { AgentDirectory } from '../agents';
import { withTypedFailures } from '../failures';
import { observeFrame, observeTask } from '../observe';

export interface WatchInput {
  agent: AgentRef;
  taskId: string;
  watchId: string;
  /** What the workflow knew when it started the watch; an INPUT_REQUIRED no newer than this is old news. */
  baseline: { state?: TaskState; timestamp?: string };
  policy: WatchPolicy;
  /** Push notifications are registered: poll slowly as a backstop instead of holding a stream. */
  push?: boolean;
}

export function createWatchTask(agents: AgentDirectory, temporal: Client) {
  return async function watchTask(input: WatchInput): Promise<Observation | undefined> {
    return withTypedFailures(async () => {
      const ctx = Context.current();
      const client = await agents.client(input.agent);
      const workflowId = ctx.info.workflowExecution?.workflowId;
      if (!workflowId) throw new Error('watchTask runs only as a workflow activity');
      const workflow = temporal.workflow.getHandle(workflowId);
      const heartbeatEvery = Math.max(1000, Math.floor((ctx.info.heartbeatTimeoutMs ?? 60_000) / 3));
      const ticker = setInterval(() => ctx.heartbeat(), heartbeatEvery);
      let first = true;
      let last: Observation | undefined;
      const emit = async (o: Observation): Promise<void> => {
        const o2: Observation = { ...o, watchId: input.watchId, first };
        first = false;
        last = o2;
        try {
          await workflow.signal(observeSignal, o2);
        } catch (err) {
          // The workflow has closed: nobody is left to watch for.
          if (err instanceof WorkflowNotFoundError) throw new CancelledFailure('workflow closed');
          throw err;
        }
      };
      const mustAct = (o: Observation): boolean => {
        const s = o.status;
        if (!s) return false;
        if (isTerminal(s.state)) return true;
        if (s.state !== 'TASK_STATE_INPUT_REQUIRED') return false;
        return input.baseline.state !== 'TASK_STATE_INPUT_REQUIRED' || s.timestamp !== input.baseline.timestamp;
      };
      try {
        const streaming =
          input.policy.mode === 'stream' || (input.policy.mode === 'auto' && !input.push && client.card.capabilities.streaming === true);
        if (streaming) await watchStream(client, input, emit, mustAct);
        else if (input.push) await watchPoll(client, input, emit, mustAct, input.policy.pushBackstop, input.policy.pushBackstop);
        else await watchPoll(client, input, emit, mustAct, input.policy.pollInitial, input.policy.pollMax);
        return last;
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw new CancelledFailure('watch cancelled');
        throw err;
      } finally {
        clearInterval(ticker);
      }
    });
  };
}

type Emit = (o: Observation) => Promise<void>;
type MustAct = (o: Observation) => boolean;

async function watchStream(client: A2AClient, input: WatchInput, emit: Emit, mustAct: MustAct): Promise<void> {
  const ctx = Context.current();
  const idleTimeoutMs = msToNumber(input.policy.idleTimeout);
  let backoffMs = 500;
  for (;;) {
    let sawFrame = false;
    try {
      for await (const frame of client.subscribeToTask({ id: input.taskId }, { signal: ctx.cancellationSignal, idleTimeoutMs })) {
        const o = observeFrame(frame, 'stream');
        if (!o) continue;
        sawFrame = true;
        await emit(o);
        if (mustAct(o)) return; // an INPUT_REQUIRED subscription may never close by itself
      }
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw err;
      // Subscribing to a terminal task is refused: GetTask below tells the end.
      if (!(err instanceof UnsupportedOperationError) && !(err instanceof A2AError && err.retryable)) throw err;
      log.info('subscription ended with an error; checking the task', { taskId: input.taskId, error: String(err) });
    }
    // The stream closed (or stalled) on a task that is not finished: look, act, then subscribe again.
    const o = observeTask(await client.getTask({ id: input.taskId, historyLength: 0 }), 'get');
    await emit(o);
    if (mustAct(o)) return;
    if (sawFrame) backoffMs = 500;
    await ctx.sleep(backoffMs);
    backoffMs = Math.min(backoffMs * 2, 30_000);
  }
}

async function watchPoll(
  client: A2AClient,
  input: WatchInput,
  emit: Emit,
  mustAct: MustAct,
  initialInterval: Duration,
  maxInterval: Duration,
): Promise<void> {
  const ctx = Context.current();
  const initial = msToNumber(initialInterval);
  const max = msToNumber(maxInterval);
  let interval = initial;
  let seen = '';
  for (;;) {
    const task = await client.getTask({ id: input.taskId, historyLength: 0 }, { signal: ctx.cancellationSignal });
    const o = observeTask(task, 'poll');
    const key = `${task.status.state}|${task.status.timestamp}|${task.artifacts?.length ?? 0}`;
    if (key !== seen) {
      seen = key;
      interval = initial; // things are moving: look again soon
      await emit(o);
    } else {
      interval = Math.min(interval * 2, max);
    }
    if (mustAct(o)) return;
    await ctx.sleep(interval);
  }
}

