/**
 * The v0.3 layer: a WireBinding, like the v1.0 bindings, that lowers each v1.0 request to v0.3
 * (to-v0_3.ts), has a v0.3 binding (wire.ts) carry it, parses what comes back with the v0.3
 * schemas and lifts it to v1.0 (to-v1.ts). The client above validates the lifted objects with
 * the v1.0 schemas as it does any binding's, so inside the planner everything stays v1.0.
 *
 * Where v0.3 says less than v1.0 the layer makes up the difference, or refuses plainly:
 * - ListTasks does not exist in v0.3: UnsupportedOperationError before anything is sent (the
 *   send activity then asks the operator rather than resend blindly; docs/a2a-client.md).
 * - v1.0's blocking SendMessage returns once the task is terminal or interrupted; v0.3's
 *   `blocking` differs by SDK (a2a-js 0.3 waits for the event marked `final`, so an agent that
 *   keeps its stream open through `auth-required` blocks the call until the task ends). The layer
 *   sends `blocking: false` and asks `tasks/get` (50 ms, doubling to 1 s) until the task is
 *   terminal or interrupted in a status other than the one an answer was sent to, for at most the call's timeout (default the transport's headers
 *   timeout, what a blocking call would have waited); then it answers the task as it last saw it.
 * - v1.0's SubscribeToTask starts with the current Task (spec §3.1.6); v0.3's `tasks/resubscribe`
 *   need not (a2a-python 0.3 sends only later events). Once the agent has answered the
 *   subscription with a stream, the layer asks `tasks/get` and yields that Task first, so a
 *   watcher always gets its first look at the task after it is subscribed.
 */
import { callDetails, callPrefix, type ErrorContext } from '../../call-context';
import { AbortedError, invalidResponse, UnsupportedOperationError } from '../../errors';
import { isInterrupted, isTerminal, type SendMessageParams, type SendMessageResponse, type Task } from '../../schema';
import type { RequestParams, StreamOperation, UnaryOperation, WireBinding, WireCallOptions, WireStreamOptions } from '../../types';
import { describeProblem, parseWith } from '../../validate';
import { cardToV1, eventToV1, pushConfigToV1, taskToV1 } from './to-v1';
import {
  V03AgentCardSchema,
  V03SendResultSchema,
  V03StreamEventSchema,
  V03TaskPushConfigListSchema,
  V03TaskPushConfigSchema,
  V03TaskSchema,
} from './schema';
import { methodOf, paramsToV03, type V03StreamMethod } from './to-v0_3';
import type { V03Wire } from './wire';
import type { z } from 'zod';

function parsed<S extends z.ZodType>(schema: S, data: unknown, ctx: ErrorContext, what: string): z.output<S> {
  const r = parseWith(schema, data);
  if (!r.ok) throw invalidResponse(ctx, describeProblem(r.problem, `v0.3 ${what}`));
  return r.value;
}

/** A v0.3 result as the v1.0 result of `op`. */
function lift(op: UnaryOperation, raw: unknown, ctx: ErrorContext): unknown {
  switch (op) {
    case 'SendMessage': {
      const r = parsed(V03SendResultSchema, raw, ctx, 'response');
      return r.kind === 'task' ? { task: taskToV1(r) } : eventToV1(r);
    }
    case 'GetTask':
    case 'CancelTask':
      return taskToV1(parsed(V03TaskSchema, raw, ctx, 'response'));
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return pushConfigToV1(parsed(V03TaskPushConfigSchema, raw, ctx, 'response'));
    case 'ListTaskPushNotificationConfigs':
      return { configs: parsed(V03TaskPushConfigListSchema, raw ?? [], ctx, 'response').map(pushConfigToV1) };
    case 'GetExtendedAgentCard':
      return cardToV1(parsed(V03AgentCardSchema, raw, ctx, 'agent card'));
    case 'DeleteTaskPushNotificationConfig':
    case 'ListTasks':
      return raw;
  }
}

export class V03Binding implements WireBinding {
  readonly binding;
  readonly url;

  constructor(
    private readonly wire: V03Wire,
    /** How long a blocking SendMessage without a timeout of its own waits for the task to settle. */
    private readonly settleCapMs: number,
  ) {
    this.binding = wire.binding;
    this.url = wire.url;
  }

  private methodFor(op: UnaryOperation | StreamOperation, ctx: ErrorContext) {
    const method = methodOf(op);
    if (method === undefined) {
      throw new UnsupportedOperationError(callPrefix(ctx) + `A2A v0.3 has no ${op}; this agent speaks only v0.3 (nothing was sent)`, callDetails(ctx));
    }
    return method;
  }

  async call(op: UnaryOperation, params: RequestParams, ctx: ErrorContext, o: WireCallOptions): Promise<unknown> {
    const method = this.methodFor(op, ctx);
    if (op === 'SendMessage' && (params as unknown as SendMessageParams).configuration?.returnImmediately !== true) return this.sendAndSettle(params, ctx, o);
    return lift(op, await this.wire.call(method, paramsToV03(op, params), ctx, o), ctx);
  }

  /**
   * v1.0's blocking send on v0.3: a non-blocking send, then tasks/get until the task settles. An
   * answer to a waiting task must not settle on the wait it answers (a non-blocking reply may
   * show the task as it was), so the task's status is read first and only another one counts.
   */
  private async sendAndSettle(params: RequestParams, ctx: ErrorContext, o: WireCallOptions): Promise<SendMessageResponse> {
    const deadline = Date.now() + (o.timeoutMs ?? this.settleCapMs);
    const p = params as unknown as SendMessageParams;
    const getCtx = { ...ctx, operation: 'GetTask' };
    const get = async (id: string, historyLength?: number): Promise<Task> =>
      lift('GetTask', await this.wire.call('tasks/get', paramsToV03('GetTask', { id, historyLength }), getCtx, { ...o, timeoutMs: Math.max(1, deadline - Date.now()) }), ctx) as Task;
    // Unreadable before: the send decides (it fails the same way, or the agent knows better).
    const before = p.message.taskId ? await get(p.message.taskId, 0).then(statusKey, () => undefined) : undefined;
    const down = paramsToV03('SendMessage', params);
    const sent = lift('SendMessage', await this.wire.call('message/send', { ...down, configuration: { ...(down['configuration'] as object), blocking: false } }, ctx, o), ctx) as SendMessageResponse;
    if (!('task' in sent)) return sent;
    let task: Task = sent.task;
    const settled = (t: Task): boolean => isTerminal(t.status.state) || (isInterrupted(t.status.state) && statusKey(t) !== before);
    for (let wait = 50; !settled(task); wait = Math.min(wait * 2, 1000)) {
      if (deadline - Date.now() <= wait) break;
      await pause(wait, o.signal, ctx);
      task = await get(task.id, p.configuration?.historyLength);
    }
    return { task };
  }

  async *stream(op: StreamOperation, params: RequestParams, ctx: ErrorContext, o: WireStreamOptions): AsyncGenerator<unknown, void, undefined> {
    const method = this.methodFor(op, ctx) as V03StreamMethod;
    const stream = await this.wire.open(method, paramsToV03(op, params), ctx, o);
    try {
      if (op === 'SubscribeToTask') {
        const get: WireCallOptions = { ...(o.signal ? { signal: o.signal } : {}), ...(o.maxResponseBytes !== undefined ? { maxResponseBytes: o.maxResponseBytes } : {}) };
        yield { task: await this.call('GetTask', { id: params['id'] }, { ...ctx, operation: 'GetTask' }, get) };
      }
      for await (const event of stream.events) yield eventToV1(parsed(V03StreamEventSchema, event, ctx, 'stream frame'));
    } finally {
      stream.release();
    }
  }
}

function pause(ms: number, signal: AbortSignal | undefined, ctx: ErrorContext): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = (): void => {
      clearTimeout(timer);
      reject(new AbortedError(callPrefix(ctx) + 'aborted', callDetails(ctx)));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    if (signal?.aborted) aborted();
    else signal?.addEventListener('abort', aborted, { once: true });
  });
}

/** What tells one status from another when an agent gives no timestamps: its state and its message. */
function statusKey(t: Task): string {
  return `${t.status.state}|${t.status.message?.messageId ?? ''}|${t.status.timestamp ?? ''}`;
}
