// The planner's A2ARequestHandler: @a2a-js/sdk's JSON-RPC and REST transports (version checks,
// error mapping, SSE framing) call it, and it serves every method from Temporal: a task is a
// PlanWorkflow, read by query and followed by its history. Nothing lives in this process: any
// replica serves any task. Like a2a-js's DefaultRequestHandler it is the method dispatch and
// delegates the rest: reading and following tasks to tasks.ts (Temporal is the task store),
// ListTasks to list-tasks.ts, push configs to push-configs.ts, params checks to params.ts.
// Answers are built in wire form and handed back through the SDK's codecs.
import { AsyncLocalStorage } from 'node:async_hooks';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  AgentCard as SdkAgentCard,
  SendMessageRequest as SdkSendMessageRequest,
  StreamResponse as SdkStreamResponse,
  Task as SdkTask,
  type ListTasksRequest as SdkListTasksRequest,
  type TaskPushNotificationConfig as SdkPushConfig,
  type GetTaskPushNotificationConfigRequest as SdkGetPushConfigRequest,
  type ListTaskPushNotificationConfigsRequest as SdkListPushConfigsRequest,
  type DeleteTaskPushNotificationConfigRequest as SdkDeletePushConfigRequest,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { z } from 'zod';
import { SendMessageParamsSchema, isInterrupted, isTerminal, type AgentCard, type Message, type SendMessageParams, type Task, type TaskState } from '../../a2a/schema';
import { PlanWorkflow } from '../../workflows/plan/workflow';
import type { PlanRunInput } from '../../workflows/plan/input';
import { PlanUpdateRefusal, upstreamMessageUpdate, type PlanWorkflowInput } from '../../workflows/plan/messages';
import { A2aTaskState, PlanId, PlannerOwner, PlannerWaitingOn, PlannerWaitingSince } from '../../workflows/search-attributes';
import { answerOf } from '../../workflows/plan/a2a-task';
import { answerSizeProblem } from '../answer-bounds';
import { workflowPollers } from '../../client/workflows';
import { listCallerTasks } from './list-tasks';
import { refuseUnlistedMediaTypes } from './media-types';
import { ConfigIdSchema, HistoryLengthSchema, IdSchema, invalidParams, parseParams } from './params';
import { refusedAs } from './plan-refusals';
import { PlanSelectionError, selectPlan, type PlanSkill, type SelectOptions } from './plans';
import { PushConfigs, type SealedPushConfig } from './push-configs';
import { TaskLookupError, contextIdFor, followTask, readTask, readTaskSoon, stateOfStatusMessage, taskIdFor, trimHistory, type Frame, type TaskRead } from './tasks';

/**
 * The HTTP request being served (set by the router): its abort signal (a stream stops following
 * when its caller leaves) and its caller, the principal of its bearer token (server/auth.ts).
 */
export const requestScope = new AsyncLocalStorage<{ signal: AbortSignal; principal: string }>();

export interface HandlerOptions {
  client: Client;
  taskQueue: string;
  /** The public card (its URLs do not matter for the version check the SDK makes with it). */
  card: () => AgentCard;
  skills: () => PlanSkill[];
  agentUrls: Record<string, string>;
  /** What a caller's plan document may name (PLANNER_CALLER_AGENTS, PLANNER_AGENTS). */
  callerRules: SelectOptions['callerRules'];
  /** How long CancelTask waits for the plan to record CANCELED before returning the task as it is. */
  cancelWaitMs?: number;
  /**
   * PLANNER_WEBHOOK_SECRET: seals the token and credentials of push configs for history (the
   * worker opens them). Without it push notifications are not offered (the card says so, -32003).
   */
  webhookSecret?: string;
  /** PLANNER_ANSWER_MAX_BYTES: the largest answer a follow-up message may carry. */
  answerMaxBytes: number;
  /** PLANNER_PUSH_CONFIGS_PER_TASK: the most push configs one task may have (the plan checks it too). */
  pushConfigsPerTask: number;
}

const GetTaskParams = z.object({ id: IdSchema, historyLength: HistoryLengthSchema });

const toSdkTask = (t: Task) => SdkTask.fromJSON(t);
const toSdkFrame = (f: Frame) => SdkStreamResponse.fromJSON(f);
/** A plan's history before its first workflow task completed: started, task scheduled, task started. */
const FIRST_WORKFLOW_TASK_EVENTS = 3;
/** "0.3" when the caller speaks A2A v0.3 (the SDK's compat layer served it; server/face/v0_3/). */
const wireVersionOf = (ctx: ServerCallContext): '0.3' | undefined => (/^0\.3(\.|$)/.test(ctx.requestedVersion) ? '0.3' : undefined);
/** A status the blocking SendMessage returns at: terminal or interrupted. */
const settles = (s: TaskState): boolean => isTerminal(s) || isInterrupted(s);

/** The task as submitted, with a status message saying that no worker runs it yet. */
function withoutWorker(task: Task, taskQueue: string): Task {
  const text = `Recorded: no planner worker polls task queue ${taskQueue} yet; the plan starts when one does. Follow it with SubscribeToTask or GetTask.`;
  return { ...task, status: { ...task.status, message: { messageId: `${task.id}/status/no-worker`, taskId: task.id, contextId: task.contextId, role: 'ROLE_AGENT', parts: [{ text }] } } };
}

function lookupError(err: unknown): unknown {
  if (err instanceof TaskLookupError && err.kind === 'not-found') return new TaskNotFoundError({ message: err.message });
  return err;
}

/** A message SendMessage or SendStreamingMessage acted on. */
interface Received {
  taskId: string;
  /** The task's history holds this many entries once the message is in it: what follows is the answer. */
  historyIndex: number;
  /** A first message: the task it started, as the caller first sees it. */
  submitted?: Task;
  /** A retried first message (its plan had started): the task as it is now. */
  current?: Task;
  configuration: SendMessageParams['configuration'];
}

export class PlannerRequestHandler implements A2ARequestHandler {
  private readonly push: PushConfigs;

  constructor(private readonly options: HandlerOptions) {
    this.push = new PushConfigs(options.client, options.webhookSecret, options.pushConfigsPerTask);
  }

  private get client(): Client {
    return this.options.client;
  }

  private signal(): AbortSignal | undefined {
    return requestScope.getStore()?.signal;
  }

  /** The caller: every lookup is scoped to its tasks. */
  private principal(): string {
    const p = requestScope.getStore()?.principal;
    if (!p) throw new Error('no caller for this request: the A2A router sets requestScope after authentication');
    return p;
  }

  private follow(id: string, opts: Omit<Parameters<typeof followTask>[2], 'principal'> = {}) {
    return followTask(this.client, id, { ...opts, principal: this.principal() });
  }

  async getAgentCard() {
    return SdkAgentCard.fromJSON(this.options.card());
  }

  async getAuthenticatedExtendedAgentCard(): Promise<never> {
    throw new UnsupportedOperationError({ message: 'This agent has no extended agent card (capabilities.extendedAgentCard is false)' });
  }

  private async read(id: string): Promise<TaskRead> {
    try {
      return await readTask(this.client, id, this.principal());
    } catch (err) {
      throw lookupError(err);
    }
  }

  /** read, waiting a little for a plan that was just started (a retry can come before its first workflow task). */
  private async readSoon(id: string): Promise<TaskRead> {
    try {
      return await readTaskSoon(this.client, id, this.principal());
    } catch (err) {
      throw lookupError(err);
    }
  }

  /**
   * What SendMessage and SendStreamingMessage share: the request checked (a webhook given inline
   * too), then the message acted on: a follow-up goes to the question its task asks, a first
   * message starts the plan it asks for.
   */
  private async receive(params: SdkSendMessageRequest, ctx: ServerCallContext): Promise<Received> {
    const { message, configuration, metadata } = parseParams(SendMessageParamsSchema, SdkSendMessageRequest.toJSON(params));
    if (message.role !== 'ROLE_USER') throw invalidParams('message.role: a client message has role ROLE_USER');
    refuseUnlistedMediaTypes(message.parts, this.options.card().defaultInputModes);
    const inline = configuration?.taskPushNotificationConfig;
    const push = inline ? this.push.accept(inline, 'configuration.taskPushNotificationConfig', wireVersionOf(ctx)) : undefined;
    if (message.taskId) {
      // A follow-up is an answer: bounded before anything is read or forwarded.
      const tooLarge = answerSizeProblem(answerOf(message.parts), this.options.answerMaxBytes);
      if (tooLarge) throw invalidParams(`message.parts: ${tooLarge.message}`);
      // A webhook the task has no room for refuses the whole message: nothing is delivered.
      if (push) await this.push.requireRoom(message.taskId, 'configuration.taskPushNotificationConfig');
      const { taskId, historyIndex } = await this.deliver(message);
      if (push) await this.push.create(taskId, push);
      return { taskId, historyIndex, configuration };
    }
    const { taskId, contextId, upstream, retried } = await this.start(message, metadata, push);
    // The task as submitted: a new plan has recorded nothing yet.
    const submitted = (at: Date): Received => ({
      taskId,
      historyIndex: 1,
      submitted: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: at.toISOString() }, history: [upstream] },
      configuration,
    });
    if (!retried) return submitted(new Date());
    // A retry (a caller that lost the answer) is told the task as it is now, and what follows it. A
    // plan no worker has run yet has recorded nothing: it is still the task as submitted, answered
    // at once (a read would wait for a worker), unless the retry brings a webhook to register.
    const started = await this.client.workflow.getHandle(taskId).describe();
    if (started.historyLength <= FIRST_WORKFLOW_TASK_EVENTS && !push) return submitted(started.startTime);
    const read = await this.readSoon(taskId);
    if (push && !read.closed) await this.push.createOnce(taskId, push);
    return { taskId, historyIndex: read.task.history.length, current: read.task, configuration };
  }

  /** Starts the plan a first message asks for; a retry with the same messageId finds the same plan (`retried`). */
  private async start(
    message: Message,
    metadata: Record<string, unknown> | undefined,
    push: SealedPushConfig | undefined,
  ): Promise<{ taskId: string; contextId: string; upstream: Message; retried: boolean }> {
    const contextId = message.contextId ?? contextIdFor(message.messageId);
    const principal = this.principal();
    const taskId = taskIdFor(principal, contextId, message.messageId);
    let run: PlanRunInput;
    try {
      run = selectPlan(message, metadata, { skills: this.options.skills(), agentUrls: this.options.agentUrls, callerRules: this.options.callerRules });
    } catch (e) {
      if (e instanceof PlanSelectionError) throw invalidParams(e.message);
      throw e;
    }
    const upstream: Message = { ...message, taskId, contextId };
    const input: PlanWorkflowInput = {
      ...run,
      a2a: { contextId, message: upstream, ...(push ? { pushConfigs: [push] } : {}), maxPushConfigs: this.options.pushConfigsPerTask },
    };
    try {
      await this.client.workflow.start(PlanWorkflow, {
        taskQueue: this.options.taskQueue,
        workflowId: taskId,
        // Temporal's id uniqueness is the duplicate check: the same messageId never starts a second plan,
        // not even after the first has closed.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [input],
        staticSummary: `A2A task: plan ${run.plan.name} (${run.plan.steps.map((s) => s.id).join(' → ')})`,
        // Who started it (the task id says it too): a hash of the caller's token, never the token.
        memo: { a2aPrincipal: principal, a2aContextId: contextId },
        typedSearchAttributes: [
          { key: PlanId, value: taskId },
          { key: PlannerWaitingOn, value: 'none' },
          { key: A2aTaskState, value: 'TASK_STATE_SUBMITTED' },
          { key: PlannerWaitingSince, value: new Date() },
          // The same owner /v1 reads (server/api/ownership.ts), carried by the plan to its steps.
          { key: PlannerOwner, value: principal },
        ],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      return { taskId, contextId, upstream, retried: true };
    }
    return { taskId, contextId, upstream, retried: false };
  }

  /** Routes a message on an existing task to the step whose question the task asks; returns the history index after it. */
  private async deliver(message: Message): Promise<{ taskId: string; historyIndex: number }> {
    const taskId = message.taskId!;
    const read = await this.read(taskId);
    if (message.contextId !== undefined && message.contextId !== read.task.contextId) {
      throw invalidParams(`message.contextId: ${message.contextId} is not the context of task ${taskId} (${read.task.contextId})`);
    }
    const state = read.task.status.state;
    if (isTerminal(state)) {
      throw new UnsupportedOperationError({ message: `Task ${taskId} is ${state}: a task in a terminal state takes no more messages; start a new task in its context` });
    }
    try {
      const r = await this.client.workflow
        .getHandle(taskId)
        .executeUpdate(upstreamMessageUpdate, { args: [{ message: { ...message, contextId: read.task.contextId } }] });
      return { taskId, historyIndex: r.historyIndex };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new UnsupportedOperationError({ message: `Task ${taskId} has ended: it takes no more messages` });
      if (refusedAs(err, PlanUpdateRefusal.NotWaitingOnInput)) {
        throw new UnsupportedOperationError({ message: `Task ${taskId} is not waiting on input (it is ${state}); nothing to answer. ${state === 'TASK_STATE_AUTH_REQUIRED' ? 'The authorization it waits for travels outside A2A; it resumes by itself.' : ''}`.trim() });
      }
      if (refusedAs(err, PlanUpdateRefusal.InvalidMessage)) throw invalidParams(`message: ${err.cause.message}`);
      throw err;
    }
  }

  /** Waits until the plan records a terminal or interrupted status after history entry `after`; returns the task then. */
  private async settled(taskId: string, after: number): Promise<Task> {
    let last: TaskRead | undefined;
    const done = (r: TaskRead): boolean => isTerminal(r.task.status.state) || r.task.history.slice(after).some((m) => settles(stateOfStatusMessage(m) ?? 'TASK_STATE_WORKING'));
    for await (const frame of this.follow(taskId, { signal: this.signal(), onRead: (r) => (last = r), fromHistoryIndex: after })) {
      void frame;
      if (last && done(last)) break;
    }
    return (last ?? (await readTaskSoon(this.client, taskId, this.principal()))).task;
  }

  async sendMessage(params: SdkSendMessageRequest, ctx: ServerCallContext) {
    const { taskId, historyIndex, submitted, current, configuration } = await this.receive(params, ctx);
    const historyLength = configuration?.historyLength;
    if (configuration?.returnImmediately) return toSdkTask(trimHistory(submitted ?? current ?? (await this.read(taskId)).task, historyLength));
    // A retry of a task that already waits or has ended answers at once: nothing is pending on it.
    if (current && settles(current.status.state)) return toSdkTask(trimHistory(current, historyLength));
    // A new plan that no worker will run yet: the caller is told so at once, not held until one starts.
    if (submitted && (await workflowPollers(this.client, this.options.taskQueue)).length === 0) {
      return toSdkTask(trimHistory(withoutWorker(submitted, this.options.taskQueue), historyLength));
    }
    return toSdkTask(trimHistory(await this.settled(taskId, historyIndex), historyLength));
  }

  async *sendMessageStream(params: SdkSendMessageRequest, ctx: ServerCallContext) {
    const { taskId, historyIndex, submitted, current } = await this.receive(params, ctx);
    // SendStreamingMessage closes after INPUT_REQUIRED (the caller answers with a new message, §11.7)
    // and stays open through AUTH_REQUIRED (the task resumes by itself, §7.6.1).
    const stopAt = (s: TaskState) => s === 'TASK_STATE_INPUT_REQUIRED';
    // A new task opens with the task as submitted; a retry with the task as it is now, closing there
    // if the caller has to act; a follow-up with the task as it is now. Then the statuses that follow
    // the message (for a retry: that follow now), up to the state after *this* message.
    if (submitted) yield toSdkFrame({ task: submitted });
    const from = submitted ? { fromHistoryIndex: historyIndex } : current ? { snapshot: true, stopAtSnapshot: true } : { snapshot: true, fromHistoryIndex: historyIndex };
    for await (const f of this.follow(taskId, { ...from, stopAt, signal: this.signal() })) yield toSdkFrame(f);
  }

  async getTask(params: { id: string; historyLength?: number }, _ctx: ServerCallContext) {
    const p = parseParams(GetTaskParams, { id: params.id, historyLength: params.historyLength });
    return toSdkTask(trimHistory((await this.read(p.id)).task, p.historyLength));
  }

  async cancelTask(params: { id: string }, _ctx: ServerCallContext) {
    const id = parseParams(IdSchema, params.id, 'id');
    const read = await this.read(id);
    if (isTerminal(read.task.status.state)) {
      throw new TaskNotCancelableError({ message: `Task ${id} is ${read.task.status.state}: a task in a terminal state cannot be cancelled` });
    }
    await this.client.workflow.getHandle(id).cancel();
    // The plan cancels its steps, which cancel the agents' tasks; then it records CANCELED.
    const abort = AbortSignal.any([AbortSignal.timeout(this.options.cancelWaitMs ?? 30_000), ...(this.signal() ? [this.signal()!] : [])]);
    let last: TaskRead = read;
    for await (const f of this.follow(id, { signal: abort, onRead: (r) => (last = r) })) void f;
    return toSdkTask(last.task);
  }

  async *resubscribe(params: { id: string }, _ctx: ServerCallContext) {
    const id = parseParams(IdSchema, params.id, 'id');
    const read = await this.read(id);
    if (isTerminal(read.task.status.state)) {
      throw new UnsupportedOperationError({ message: `Task ${id} is ${read.task.status.state}: a terminal task cannot be subscribed to; use GetTask` });
    }
    // Open until the task is terminal, through INPUT_REQUIRED and AUTH_REQUIRED (§3.1.6).
    for await (const f of this.follow(id, { snapshot: true, signal: this.signal() })) yield toSdkFrame(f);
  }

  async listTasks(params: SdkListTasksRequest, _ctx: ServerCallContext) {
    return listCallerTasks(this.client, this.principal(), params);
  }

  // Push notifications for upstream callers (§3.1.7–§3.1.10): the configs live in the plan, which
  // delivers every later status and artifact to them (push-configs.ts).

  async createTaskPushNotificationConfig(params: SdkPushConfig, ctx: ServerCallContext): Promise<SdkPushConfig> {
    this.push.requireOffered();
    const taskId = parseParams(IdSchema, params.taskId, 'taskId');
    const input = { ...(params.id ? { id: params.id } : {}), url: params.url, ...(params.token ? { token: params.token } : {}), ...(params.authentication ? { authentication: params.authentication } : {}) };
    const config = this.push.accept(input, '', wireVersionOf(ctx));
    const read = await this.read(taskId);
    // A finished task is answered, not refused (push-configs.ts unkept).
    if (read.closed || isTerminal(read.task.status.state)) return this.push.unkept(taskId, config);
    return this.push.create(taskId, config);
  }

  async getTaskPushNotificationConfig(params: SdkGetPushConfigRequest, ctx: ServerCallContext): Promise<SdkPushConfig> {
    this.push.requireOffered();
    const taskId = parseParams(IdSchema, params.taskId, 'taskId');
    // v0.3 may name the task only (TaskIdParams): its first config, as v0.3's SDKs answer.
    if (params.id === '' && wireVersionOf(ctx)) {
      const [first] = await this.push.list(taskId, (await this.read(taskId)).runId);
      if (!first) throw new TaskNotFoundError({ message: `Task ${taskId} has no push notification config` });
      return first;
    }
    const id = parseParams(ConfigIdSchema, params.id, 'id');
    const read = await this.read(taskId);
    return this.push.get(taskId, read.runId, id);
  }

  async listTaskPushNotificationConfigs(params: SdkListPushConfigsRequest) {
    this.push.requireOffered();
    const taskId = parseParams(IdSchema, params.taskId, 'taskId');
    const read = await this.read(taskId);
    // A task has a handful of configs: one page holds them all.
    return { configs: await this.push.list(taskId, read.runId), nextPageToken: '' };
  }

  async deleteTaskPushNotificationConfig(params: SdkDeletePushConfigRequest): Promise<void> {
    this.push.requireOffered();
    const taskId = parseParams(IdSchema, params.taskId, 'taskId');
    const id = parseParams(ConfigIdSchema, params.id, 'id');
    const read = await this.read(taskId);
    // An ended task's configs ended with it (§3.1.10: deleting is idempotent).
    if (read.closed) return;
    await this.push.delete(taskId, read.runId, id);
  }
}
