// Sends one message (the first one, or an answer on the same task) with a messageId derived from the
// workflow, so a retry resends the same id. A retry first reconciles: the earlier attempt may have
// reached the agent even though its reply never reached us. It never resends blindly: when
// nothing the agent offers can tell, it returns `unresolved` and the workflow asks the operator.
//
// Every call runs under the heartbeat, with its own deadline inside the activity's budget, and
// every failure names the agent, the call and the cause (the a2a errors' messages do).
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  A2AError,
  AbortedError,
  InvalidAgentResponseError,
  MethodNotFoundError,
  TaskNotFoundError,
  TimeoutError,
  UnsupportedOperationError,
  callDetails,
  callPrefix,
  isInterrupted,
  isRetryable,
  isTerminal,
  type A2AClient,
  type CallOptions,
  type Message,
  type Part,
  type SendMessageResponse,
  type Task,
  type TaskState,
} from '../a2a';
import type { AgentRef } from '../workflows/delegated-task/input';
import type { Observation } from '../workflows/delegated-task/messages';
import type { AgentDirectory } from './agents';
import { remoteTaskLost, withTypedFailures } from './failures';
import { RemoteTask } from '../workflows/delegated-task/remote-task';
import { callTimeoutMs } from '../workflows/delegated-task/call-timeout';
import { messageText, observeFrame, observeTask } from './observe';
import { inTheAgentsWords, type Alert } from './alert-operator';
import type { StepReport } from './report-step';
import { armUnansweredAlert, type UnansweredAlert } from './unanswered-alert';
import type { EarlySubscriptions } from './early-subscriptions';
import { streams as policyStreams } from './watch-task';

export interface SendInput {
  agent: AgentRef;
  messageId: string;
  message: { text?: string; data?: unknown; contextId?: string; referenceTaskIds?: string[] };
  /** Set for an answer: the task and context it continues. */
  taskId?: string;
  contextId?: string;
  /** The question being answered, to tell whether the task has moved on since. */
  question?: { timestamp?: string; text?: string };
  timeoutMs: number;
  /**
   * The operator's decision after an `unresolved` outcome. 'resend': send again with the same
   * messageId without reconciling (on this activity's first attempt only; its own retries
   * reconcile as usual). adopt: GetTask on that task and return what it shows, sending nothing.
   */
  resolution?: 'resend' | { adoptTaskId: string };
  /** The first message: alert a person when it goes unanswered this long. */
  unanswered?: UnansweredAlert;
  /**
   * A local first attempt (workflows/delegated-task/local-first.ts) that failed once the message
   * may have been on the wire: reconcile before sending, as a retry does (a local attempt leaves
   * no heartbeat and no attempt count behind).
   */
  mayHaveSent?: boolean;
  /** Run as a local activity: return within this long, with the task as it stands (see `deferred`). */
  holdMs?: number;
  /** The task a local attempt learned before it failed: reconcile on it (GetTask), as on a heartbeated id. */
  known?: { taskId: string; contextId?: string };
  /**
   * The first message: how the watch of an approval would hold the task (its policy's mode, idle
   * timeout and push), so that a streamed send whose task stops at AUTH_REQUIRED subscribes for it
   * when that watch would stream and the worker is idle (activities/early-subscriptions.ts).
   */
  watch?: {
    mode: 'auto' | 'stream' | 'poll';
    idleTimeoutMs: number;
    push: boolean;
    /**
     * The alert of the approval round the task would stop at (its taskId and text are the send's to
     * fill in): posted once the subscription opened for the watch shows its first frame (subscribe
     * first, alert second), so that it waits for no workflow task and no watch's dispatch; the
     * observation's `alerted` says it went out. Else the watch posts it, under the same key.
     */
    alert?: Alert & { round: number };
  };
  /**
   * The first message: the alert of the first question its task may stop at (its taskId and text
   * are the send's to fill in). A local attempt whose streamed task stops at INPUT_REQUIRED posts
   * it before it returns (`questionAlerted`), so the alert waits for no workflow task after the
   * send: the workflow takes the local result in the same workflow task, before any answer can
   * arrive (an update that came with an activity's result would be validated before it, and find no
   * question). When the post fails or is slow, the workflow posts it, under the same key.
   */
  questionAlert?: Alert;
  /**
   * A plan's step: the report of that question to its plan (the task's fields are the send's to
   * fill in), sent beside the alert and as the alert is, so that the workflow task that takes the
   * question holds no report of its own: an answer given the moment the alert arrives waited for it.
   */
  questionReport?: StepReport;
}

export interface SendOutcome {
  observation?: Observation;
  /** A Message reply: the whole answer, no task. */
  message?: Message;
  text?: string;
  /** True when a retry found the message already delivered and sent nothing. */
  reconciled?: boolean;
  /** Nothing could tell whether an earlier attempt reached the agent; nothing was sent. */
  unresolved?: { reason: string };
  /** A local attempt sent nothing and leaves the send to the activity (a blocking call, or one that failed before the wire). */
  deferred?: true;
  /** A local attempt failed, retryably, after the agent named its task: the activity takes over from that id. */
  handOver?: { taskId: string; contextId?: string };
  /** The send posted `questionAlert`. */
  questionAlerted?: true;
  /** The report the send delivered to the plan (`questionReport`, filled in). */
  questionReported?: StepReport['change'];
}

/** What an attempt heartbeats, and so what the next attempt finds in `info.heartbeatDetails`. */
export interface SendProgress {
  /** The agent's task for our message, as soon as the wire told us (first stream frame). */
  taskId?: string;
  contextId?: string;
  /** The call under way, so that even a heartbeat timeout (a dead worker) says where it stood. */
  call?: string;
}
const SendProgressSchema = z.object({ taskId: z.string().min(1).optional(), contextId: z.string().optional() });

const RECONCILE_WINDOW_MS = 10 * 60_000;
const LIST_PAGES = 5;

/**
 * A send's outcome on the calls metric: a local attempt that deferred made no SendMessage (none is
 * counted; its activity's attempt is), one that handed over failed after the agent named its task,
 * and a retry that could not tell whether an earlier attempt arrived sent nothing.
 */
export function sendOutcomeOf(o: SendOutcome): string | null {
  if (o.deferred) return null;
  if (o.handOver) return 'HandedOver';
  if (o.unresolved) return 'Unresolved';
  return 'ok';
}

/** Where a streamed send leaves the subscription it opens for the watch, and whether this worker registers push configs. */
export interface ForTheWatch {
  early: EarlySubscriptions;
  pushes: boolean;
}

/** How long the send's post of the question's alert (its connect included) and its report to the plan may each take before they are left to the workflow. */
const BESIDE_WITHIN_MS = 1_000;

export function createSendMessage(agents: AgentDirectory, beside: Beside) {
  return async function sendMessage(input: SendInput): Promise<SendOutcome> {
    const ctx = Context.current();
    // Heartbeat from the very start: the card fetch and the reconcile calls may be slow too.
    const attempt = new Attempt(ctx, input.agent.name, callTimeoutMs(input.agent));
    if (input.known && attempt.progress.taskId === undefined) Object.assign(attempt.progress, input.known);
    // A local attempt holds only briefly; the activity that follows it tells of an unanswered message.
    const disarm = ctx.info.isLocal ? () => undefined : armUnansweredAlert(ctx, input.unanswered, () => attempt.progress.taskId !== undefined, beside.alert);
    try {
      return await withTypedFailures(async () => {
        const client = await agents.client(input.agent);
        try {
          return await run(client, input, attempt, beside);
        } catch (err) {
          // An answer to a task the agent no longer knows (it restarted without its tasks): no
          // retry or resend can reach that task again, so the step ends saying so.
          if (input.taskId && err instanceof TaskNotFoundError) throw remoteTaskLost(input.agent.name, input.taskId, err);
          throw err;
        }
      });
    } catch (err) {
      // A cancelled activity reports its cancellation, not the aborted call it was in.
      if (ctx.cancellationSignal.aborted && ctx.cancellationSignal.reason) throw ctx.cancellationSignal.reason;
      // A local first send that failed before the wire sent nothing: the activity's first attempt
      // sends. A local answer whose look failed cannot say what an earlier one did: it fails, and
      // the activity reconciles.
      if (ctx.info.isLocal && !attempt.onWire && !input.taskId) {
        log.info('local send failed before the wire; the activity sends', { messageId: input.messageId, error: String(err) });
        return { deferred: true };
      }
      const { taskId, contextId } = attempt.progress;
      if (ctx.info.isLocal && taskId !== undefined && !(err instanceof ApplicationFailure && err.nonRetryable)) {
        log.info('local send failed after the agent named its task; the activity takes over', { messageId: input.messageId, taskId, error: String(err) });
        return { handOver: { taskId, ...(contextId !== undefined ? { contextId } : {}) } };
      }
      throw err;
    } finally {
      disarm();
      attempt.stop();
    }
  };
}

/** One attempt's heartbeat, progress and time budget. */
class Attempt {
  readonly progress: SendProgress;
  private readonly ticker: NodeJS.Timeout;
  private readonly deadline: number;
  private readonly budgetMs: number;

  constructor(
    readonly ctx: Context,
    readonly agent: string,
    /** Cap for one GetTask / ListTasks call (the agent's callTimeout); the send itself gets `timeoutMs`. */
    readonly lookupMs: number,
  ) {
    const carried = SendProgressSchema.safeParse(ctx.info.heartbeatDetails ?? {});
    if (!carried.success) log.warn('ignoring unreadable heartbeat details of the earlier attempt', { details: String(ctx.info.heartbeatDetails) });
    this.progress = carried.success ? { ...carried.data } : {};
    // startToClose counts from the attempt's start, which is about now; keep a margin so our
    // own named failure arrives before Temporal's anonymous timeout.
    this.budgetMs = ctx.info.startToCloseTimeoutMs;
    this.deadline = Date.now() + this.budgetMs - Math.min(2_000, this.budgetMs * 0.1);
    const hb = ctx.info.heartbeatTimeoutMs;
    const every = hb ? Math.min(5_000, Math.max(50, Math.floor(hb / 3))) : 5_000;
    this.beat();
    this.ticker = setInterval(() => this.beat(), every);
  }

  /** The message may have reached the agent (a local attempt that fails from here on cannot say it sent nothing). */
  onWire = false;

  private beat(): void {
    // A local activity has no heartbeat: its workflow task is what a crash times out.
    if (!this.ctx.info.isLocal) this.ctx.heartbeat({ ...this.progress });
  }

  /** The task id is known: heartbeat it now, so that even a crash a moment later keeps it. */
  learn(task: { id: string; contextId?: string }): void {
    if (this.progress.taskId === task.id) return;
    this.progress.taskId = task.id;
    if (task.contextId) this.progress.contextId = task.contextId;
    this.beat();
  }

  /** This call's deadline: its cap, within what is left of the budget. */
  timeFor(op: string, capMs: number, url: string): number {
    const left = this.deadline - Date.now();
    if (left <= 0) {
      const ctx = { agent: this.agent, url, operation: op };
      throw new TimeoutError(
        `${callPrefix(ctx)}no time left for this call in the activity's budget of ${this.budgetMs} ms (startToCloseTimeout)`,
        'call',
        callDetails(ctx),
      );
    }
    return Math.max(1, Math.min(capMs, left));
  }

  async call<T>(op: string, capMs: number, client: A2AClient, fn: (o: CallOptions) => Promise<T>): Promise<T> {
    const timeoutMs = this.timeFor(op, capMs, client.url);
    this.progress.call = op;
    this.beat();
    try {
      return await fn({ signal: this.ctx.cancellationSignal, timeoutMs });
    } finally {
      delete this.progress.call;
    }
  }

  stop(): void {
    clearInterval(this.ticker);
  }
}

/** What a send does besides sending: post the first question's or approval's alert, report the question to the plan, and subscribe for the approval's watch. */
export interface Beside {
  alert: (alert: Alert, signal?: AbortSignal) => Promise<void>;
  report?: (report: StepReport, signal?: AbortSignal) => Promise<void>;
  watch?: ForTheWatch;
  /** Signals an observation to the send's own workflow run: what the held subscription sees before a watch takes it. */
  observe?: (run: { workflowId: string; runId: string }, observation: Observation) => Promise<void>;
  /**
   * Whether the worker has nothing in flight but this send. Only then does the send hold a
   * subscription for the approval's watch and post its alert: on a busy worker its workflow task
   * ends behind the others', and an approval given before it ends waits for it (docs/benchmarks.md),
   * where the watch's alert comes after it.
   */
  idle?: () => boolean;
}

async function run(client: A2AClient, input: SendInput, a: Attempt, beside: Beside): Promise<SendOutcome> {
  const { resolution } = input;
  if (typeof resolution === 'object') return adopt(client, input, a, resolution.adoptTaskId);
  const local = a.ctx.info.isLocal;
  const streams = !input.taskId && client.card.capabilities.streaming === true;
  // A blocking first send lasts the agent's whole work: too long to hold a workflow task open.
  if (local && !input.taskId && !streams) return { deferred: true };
  const resend = resolution === 'resend' && a.ctx.info.attempt === 1 && a.progress.taskId === undefined;
  // A local answer always looks first: a crash in its workflow task runs it again, unnumbered.
  if (local && input.taskId) {
    const seen = await localLook(client, input, a);
    if (seen) return seen;
  }
  const retried = a.ctx.info.attempt > 1 || a.progress.taskId !== undefined || input.mayHaveSent === true;
  if (!resend && retried) {
    const r = input.taskId ? await reconcileAnswer(client, input, a) : await reconcileFirst(client, input, a);
    if (r.kind === 'found') {
      log.info('earlier attempt reached the agent; not sending again', { messageId: input.messageId, taskId: r.task.id });
      return { observation: observeTask(r.task, 'get'), reconciled: true };
    }
    if (r.kind === 'unknown') {
      log.warn('cannot tell whether an earlier attempt reached the agent; not sending', { messageId: input.messageId, reason: r.reason });
      return { unresolved: { reason: r.reason } };
    }
  }
  if (streams) {
    const streamed = await sendStreaming(client, input, a, beside);
    if (streamed !== 'refused') return streamed;
    if (local) return { deferred: true };
  }
  return sendBlocking(client, input, a);
}

/** How long a call may hold: its own timeout, and a local attempt's hold. */
const holdOf = (input: SendInput, a: Attempt): number => Math.min(input.timeoutMs, a.ctx.info.isLocal && input.holdMs !== undefined ? input.holdMs : Infinity);

// --- Sending ----------------------------------------------------------------------------------

function toMessage(input: SendInput): Message {
  const parts: Part[] = [];
  if (input.message.text !== undefined) parts.push({ text: input.message.text });
  if (input.message.data !== undefined) parts.push({ data: input.message.data, mediaType: 'application/json' });
  return {
    messageId: input.messageId,
    role: 'ROLE_USER',
    parts,
    ...(input.taskId ? { taskId: input.taskId } : {}),
    ...((input.contextId ?? input.message.contextId) ? { contextId: input.contextId ?? input.message.contextId } : {}),
    ...(input.message.referenceTaskIds?.length ? { referenceTaskIds: input.message.referenceTaskIds } : {}),
  };
}

async function sendBlocking(client: A2AClient, input: SendInput, a: Attempt): Promise<SendOutcome> {
  try {
    a.onWire = true;
    const reply = await a.call('SendMessage', holdOf(input, a), client, (o) =>
      client.sendMessage({ message: toMessage(input), configuration: { historyLength: 0 } }, o),
    );
    return outcome(reply, input, client);
  } catch (err) {
    // A follow-up refused because the task ended meanwhile: report where it ended, never retry blindly.
    if (input.taskId && err instanceof UnsupportedOperationError) {
      const task = await a.call('GetTask', a.lookupMs, client, (o) => client.getTask({ id: input.taskId!, historyLength: 0 }, o));
      if (isTerminal(task.status.state)) return { observation: observeTask(task, 'get') };
    }
    throw err;
  }
}

function outcome(reply: SendMessageResponse, input: SendInput, client: A2AClient): SendOutcome {
  if ('message' in reply && reply.message) return { message: reply.message, text: messageText(reply.message) };
  if ('task' in reply && reply.task) return { observation: observeTask(reply.task, 'send') };
  throw new InvalidAgentResponseError(`${callPrefix({ agent: input.agent.name, url: client.url, operation: 'SendMessage' })}the reply has neither a task nor a message`);
}

/** Where the blocking call returns: the task is over, or waits on someone. */
const stops = (s: TaskState): boolean => isTerminal(s) || isInterrupted(s);

/**
 * The first message as SendStreamingMessage: its first frame names the task, which is
 * heartbeated at once, so a retry can ask GetTask instead of guessing. Read like the blocking
 * call: until the task is terminal or interrupted, then return the merged snapshot.
 * 'refused' when the agent turns the stream down before any frame (the blocking call follows).
 */
async function sendStreaming(client: A2AClient, input: SendInput, a: Attempt, beside: Beside): Promise<SendOutcome | 'refused'> {
  const op = 'SendStreamingMessage';
  const timeoutMs = a.timeFor(op, holdOf(input, a), client.url);
  const holding = timeoutMs < input.timeoutMs;
  const abort = new AbortController();
  const onCancel = (): void => abort.abort();
  a.ctx.cancellationSignal.addEventListener('abort', onCancel, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  a.progress.call = op;
  // Frames fold into one view of the task the way the watch folds them (workflows/delegated-task/remote-task.ts).
  const view = new RemoteTask();
  let frames = 0;
  try {
    a.onWire = true;
    const stream = client.sendStreamingMessage({ message: toMessage(input), configuration: { historyLength: 0 } }, { signal: abort.signal });
    for await (const frame of stream) {
      frames++;
      if ('message' in frame && frame.message) {
        if (view.taskId === undefined) return { message: frame.message, text: messageText(frame.message) };
        continue; // an agent's message inside a task's stream says nothing about the task
      }
      const o = observeFrame(frame, 'send');
      if (!o) continue;
      view.apply(o);
      a.learn({ id: o.taskId, contextId: view.contextId });
      if (view.state && stops(view.state)) break;
    }
  } catch (err) {
    if (a.ctx.cancellationSignal.aborted) throw err;
    const call = { agent: input.agent.name, url: client.url, operation: op };
    const cause = timedOut
      ? new TimeoutError(`${callPrefix(call)}the task neither stopped nor ended within ${timeoutMs} ms`, 'call', callDetails(call))
      : err;
    if (frames === 0 && (err instanceof UnsupportedOperationError || err instanceof MethodNotFoundError)) return 'refused';
    // A local attempt's hold is over and the task is known: the workflow watches it from here.
    if (timedOut && holding && view.taskId !== undefined) return { observation: view.observation('send') };
    if (a.progress.taskId) return afterBrokenStream(client, a, a.progress.taskId, cause);
    throw cause;
  } finally {
    clearTimeout(timer);
    a.ctx.cancellationSignal.removeEventListener('abort', onCancel);
    delete a.progress.call;
  }
  if (view.taskId === undefined) {
    const call = { agent: input.agent.name, url: client.url, operation: op };
    throw new InvalidAgentResponseError(`${callPrefix(call)}the stream ended without a frame`, callDetails(call));
  }
  const forWatch = beside.watch;
  // Only on an idle worker (Beside.idle): a held subscription on a busy one slowed a burst's observed
  // resumes (docs/benchmarks.md, "The approval's observed resume beside the code the issue measured").
  if (view.state === 'TASK_STATE_AUTH_REQUIRED' && forWatch && input.watch && beside.idle?.() !== false && watchStreams(input.watch, client, forWatch.pushes)) {
    const run = a.ctx.info.workflowExecution;
    const { observe } = beside;
    forWatch.early.open(client, view.taskId, input.watch.idleTimeoutMs, observe && run && ((o) => observe(run, o)));
    const alert = input.watch.alert;
    if (alert && (await alertSubscribed(client, view, view.taskId, alert, beside.alert, forWatch.early))) return { observation: { ...view.observation('send'), alerted: alert.round } };
  }
  if (view.state === 'TASK_STATE_INPUT_REQUIRED' && a.ctx.info.isLocal) return { observation: view.observation('send'), ...(await besideTheQuestion(input, view, view.taskId, beside)) };
  // A stream closed early (still WORKING) is fine: the workflow watches the task from here.
  return { observation: view.observation('send') };
}

/** A local send's task stopped at its first question: post its alert and report it to the plan, side by side. */
async function besideTheQuestion(input: SendInput, view: RemoteTask, taskId: string, beside: Beside): Promise<Pick<SendOutcome, 'questionAlerted' | 'questionReported'>> {
  const { questionAlert: alert, questionReport: report } = input;
  const { contextId, state, text, authEntries: authRounds, timestamp: lastUpdate } = view;
  const filled = report && { ...report, change: { ...report.change, status: { ...report.change.status, taskId, contextId, state, text, authRounds, lastUpdate } } };
  const { report: deliver } = beside;
  const [alerted, reported] = await Promise.all([
    alert !== undefined && inTime("the question's alert", taskId, (signal) => beside.alert(inTheAgentsWords(alert, taskId, text), signal)),
    filled !== undefined && deliver !== undefined && inTime("the question's report", taskId, (signal) => deliver(filled, signal)),
  ]);
  return { ...(alerted ? { questionAlerted: true } : {}), ...(reported && filled ? { questionReported: filled.change } : {}) };
}

/** Runs the alert's post or the report, aborted past BESIDE_WITHIN_MS; false when it failed or was aborted (the workflow sends it again: the alert under the same key, the report under a newer seq). */
async function inTime(what: string, taskId: string, fn: (signal: AbortSignal) => Promise<void>): Promise<boolean> {
  try {
    await fn(AbortSignal.timeout(BESIDE_WITHIN_MS));
    return true;
  } catch (err) {
    log.info(`${what} is left to the workflow`, { taskId, error: String(err) });
    return false;
  }
}

/**
 * Subscribe first, alert second: the approval's alert, posted once the subscription held for the
 * watch shows the task still waiting. False when it is left to the watch (no first frame in time,
 * the task moved on, or the post failed or was slow: the watch posts it under the same key).
 */
async function alertSubscribed(client: A2AClient, view: RemoteTask, taskId: string, alert: Alert & { round: number }, post: Beside['alert'], early: EarlySubscriptions): Promise<boolean> {
  const frame = await early.firstFrame(client, taskId, BESIDE_WITHIN_MS);
  if (!frame || observeFrame(frame, 'stream')?.status?.state !== 'TASK_STATE_AUTH_REQUIRED') return false;
  return inTime("the approval's alert", taskId, (signal) => post(inTheAgentsWords(alert, taskId, view.text), signal));
}

/** Whether the approval's watch would hold a stream (activities/watch-task.ts): it streams, and no push config is its watch. */
function watchStreams(watch: NonNullable<SendInput['watch']>, client: A2AClient, pushes: boolean): boolean {
  const pushed = watch.push && pushes && client.card.capabilities.pushNotifications === true;
  return !pushed && policyStreams(watch, client);
}

/** The stream broke after it named the task: ask where the task stands instead of failing. */
async function afterBrokenStream(client: A2AClient, a: Attempt, taskId: string, cause: unknown): Promise<SendOutcome> {
  log.info('streamed send broke after the task was known; asking GetTask', { taskId, error: String(cause) });
  try {
    const task = await a.call('GetTask', a.lookupMs, client, (o) => client.getTask({ id: taskId, historyLength: 0 }, o));
    return { observation: observeTask(task, 'get') };
  } catch (err) {
    if (a.ctx.cancellationSignal.aborted) throw err;
    // The retry knows the id (heartbeated) and will ask again; report the more useful failure.
    throw isRetryable(cause) || !isRetryable(err) ? cause : err;
  }
}

// --- Reconciling --------------------------------------------------------------------------------

type Reconciled = { kind: 'found'; task: Task } | { kind: 'absent' } | { kind: 'unknown'; reason: string };

const hasMessage = (task: Task, messageId: string): boolean => (task.history ?? []).some((m) => m.messageId === messageId);

/** A refusal that no retry changes: the agent will not tell (auth, unsupported, unusable answer). Our own abort is none. */
const refusal = (err: unknown): err is A2AError => err instanceof A2AError && !err.retryable && !(err instanceof AbortedError);

const undecided = (input: SendInput, why: string): string =>
  `cannot tell whether agent ${input.agent.name} received message ${input.messageId}: ${why}. ` +
  'Nothing was sent again; decide: resend it, or adopt the task the agent shows for it.';

/**
 * A local answer's look, before it sends: our messageId in the task's history means an earlier
 * local attempt (a crashed workflow task) delivered it. An agent that shows no history cannot
 * tell, so the answer is left to the activity (`deferred`), which sends as a first attempt does:
 * no local attempt sends to such an agent, so none can have.
 */
async function localLook(client: A2AClient, input: SendInput, a: Attempt): Promise<SendOutcome | undefined> {
  const task = await a.call('GetTask', a.lookupMs, client, (o) => client.getTask({ id: input.taskId! }, o));
  if (hasMessage(task, input.messageId)) return { observation: observeTask(task, 'get'), reconciled: true };
  if (!task.history?.length) return { deferred: true };
  return undefined;
}

/** An answer on a known task: GetTask tells whether it arrived (our messageId) or the task moved on. */
async function reconcileAnswer(client: A2AClient, input: SendInput, a: Attempt): Promise<Reconciled> {
  const task = await a.call('GetTask', a.lookupMs, client, (o) => client.getTask({ id: input.taskId! }, o));
  if (hasMessage(task, input.messageId)) return { kind: 'found', task };
  const movedOn =
    task.status.state !== 'TASK_STATE_INPUT_REQUIRED' ||
    (input.question?.timestamp !== undefined && task.status.timestamp !== input.question.timestamp);
  return movedOn ? { kind: 'found', task } : { kind: 'absent' };
}

/** A first message: GetTask on the id an earlier attempt learned, else ListTasks for our messageId. */
async function reconcileFirst(client: A2AClient, input: SendInput, a: Attempt): Promise<Reconciled> {
  const known = a.progress.taskId;
  if (known) {
    try {
      const task = await a.call('GetTask', a.lookupMs, client, (o) => client.getTask({ id: known, historyLength: 0 }, o));
      return { kind: 'found', task };
    } catch (err) {
      if (err instanceof TaskNotFoundError) {
        return { kind: 'unknown', reason: undecided(input, `the agent named task ${known} for it on an earlier attempt and now answers ${err.message}`) };
      }
      throw err;
    }
  }
  // The agent minted the task id and its reply was lost: look for our messageId among recent tasks.
  let pageToken: string | undefined;
  let withoutHistory = 0;
  for (let page = 0; page < LIST_PAGES; page++) {
    let list;
    try {
      list = await a.call('ListTasks', a.lookupMs, client, (o) =>
        client.listTasks(
          {
            contextId: input.message.contextId,
            statusTimestampAfter: new Date(a.ctx.info.scheduledTimestampMs - RECONCILE_WINDOW_MS).toISOString(),
            pageSize: 100,
            pageToken,
          },
          o,
        ),
      );
    } catch (err) {
      if (refusal(err)) return { kind: 'unknown', reason: undecided(input, `its reply was lost, no task id was learned, and ${err.message}`) };
      throw err; // retryable: the next attempt asks again
    }
    const hit = list.tasks.find((t) => hasMessage(t, input.messageId));
    if (hit) return { kind: 'found', task: hit };
    withoutHistory += list.tasks.filter((t) => !t.history?.length).length;
    if (!list.nextPageToken) {
      if (withoutHistory === 0) return { kind: 'absent' };
      return { kind: 'unknown', reason: undecided(input, `its reply was lost and ListTasks shows ${withoutHistory} recent task(s) without their messages`) };
    }
    pageToken = list.nextPageToken;
  }
  return { kind: 'unknown', reason: undecided(input, `its reply was lost and ListTasks shows more than ${LIST_PAGES * 100} recent tasks without it`) };
}

/** The operator named the task: GetTask on it, and that is the observation. */
async function adopt(client: A2AClient, input: SendInput, a: Attempt, taskId: string): Promise<SendOutcome> {
  try {
    const task = await a.call('GetTask', a.lookupMs, client, (o) => client.getTask({ id: taskId, historyLength: 0 }, o));
    a.learn(task);
    return { observation: observeTask(task, 'get'), reconciled: true };
  } catch (err) {
    if (err instanceof TaskNotFoundError) {
      return { unresolved: { reason: `cannot adopt task ${taskId} for message ${input.messageId}: ${err.message}. Decide again: resend, or adopt another task.` } };
    }
    throw err;
  }
}
