// Records the histories of delegated tasks that test/histories.test.ts replays, so that a change to
// workflows/ that would break running workflows fails the suite. Runs the code of the checkout it
// sits in: its own dev server, its own workers and the real test agents (demo/agents/).
//
//   npx tsx scripts/record-histories.ts test/histories/v2     # one folder per workflow code version
//
// To record from an older commit, check it out in a worktree, copy this script into its scripts/
// (and test/histories/history-json.ts into its test/histories/) and give an absolute output folder (test/histories/v1/README.md says how v1 was made).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { connectClient, temporalTarget } from '../runtime/temporal-connection';
import { plannerBundle } from '../worker/workflow-bundle';
import pino from 'pino';
import { startDelegatedTask } from '../client/delegated-task';
import { startPushReceiver } from '../server/push/standalone';
import { startCodeReviewer, startDeployer, type AgentHandle } from '../test/agents';
import { startAlertSink, type AlertSink } from '../test/support/alert-sink';
import { historyToJson } from '../test/histories/history-json';
import { loadConfig } from '../runtime/config';
import { installRuntime } from '../runtime/logger';
import { createPlannerWorkers } from '../worker/workers';
import type { DelegatedTaskInput } from '../workflows/delegated-task/input';
import { statusQuery, type DelegatedTaskStatus } from '../workflows/delegated-task/messages';
import { startDevServer } from '../deploy/dev/dev-server';

const DIFF = 'Please review:\n+const retries = 3;';
const DEPLOY = 'Deploy build 1 to staging';
const PUSH_SECRET = 'record-histories-secret-0123456789';
const WAIT_MS = 20_000;

interface Ctx {
  client: Client;
  sink: AlertSink;
  /** Starts a task on the plain workers' queue, or on the push-enabled one. */
  start(id: string, input: DelegatedTaskInput, opts?: { push?: boolean }): Promise<WorkflowHandle>;
}

interface Scenario {
  name: string;
  what: string;
  run(ctx: Ctx, id: string): Promise<WorkflowHandle>;
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const statusWhere = (h: WorkflowHandle, pred: (s: DelegatedTaskStatus) => boolean, what: string): Promise<DelegatedTaskStatus> =>
  until(async () => {
    const s = await h.query(statusQuery);
    return pred(s) ? s : undefined;
  }, what);

const alerts = (ctx: Ctx, h: WorkflowHandle, n: number): Promise<true> =>
  until(async () => (ctx.sink.forWorkflow(h.workflowId).length >= n ? true : undefined), `alert ${n} of ${h.workflowId}`);

/** Runs `body` with an agent that lives only for the scenario. */
async function withAgent<T>(agent: Promise<AgentHandle>, body: (a: AgentHandle) => Promise<T>): Promise<T> {
  const a = await agent;
  try {
    return await body(a);
  } finally {
    await a.close();
  }
}

const reviewer = (a: AgentHandle) => ({ name: 'code-reviewer', url: a.baseUrl });
const deployer = (a: AgentHandle) => ({ name: 'deployer', url: a.baseUrl });

/** Approves `rounds` times, each after the round's alert, and waits for the result. */
const approveRounds = async (ctx: Ctx, h: WorkflowHandle, a: AgentHandle, rounds: number): Promise<WorkflowHandle> => {
  for (let round = 1; round <= rounds; round++) {
    const s = await statusWhere(h, (x) => x.waitingOn === 'operator' && x.authRounds === round, `auth round ${round}`);
    await alerts(ctx, h, round);
    await a.approve(s.taskId!);
  }
  await h.result();
  return h;
};

const answerTurns = async (h: WorkflowHandle, answers: string[]): Promise<WorkflowHandle> => {
  for (const [i, text] of answers.entries()) {
    await statusWhere(h, (x) => x.waitingOn === 'human' && x.turn === i + 1, `question ${i + 1}`);
    await h.executeUpdate('answer', { args: [{ text, turn: i + 1 }] });
  }
  await h.result();
  return h;
};

const cancelWhile = async (h: WorkflowHandle, waitingOn: 'human' | 'operator'): Promise<WorkflowHandle> => {
  await statusWhere(h, (x) => x.waitingOn === waitingOn, `waiting on ${waitingOn}`);
  await h.cancel();
  await h.result().then(
    () => Promise.reject(new Error(`${h.workflowId} completed although it was cancelled`)),
    () => undefined,
  );
  return h;
};

export const scenarios: Scenario[] = [
  {
    name: 'instant',
    what: 'an agent that completes at once (code-reviewer asking nothing), JSON-RPC',
    run: (ctx, id) =>
      withAgent(startCodeReviewer({ questions: 0 }), async (a) => {
        const h = await ctx.start(id, { agent: reviewer(a), message: { text: DIFF } });
        await h.result();
        return h;
      }),
  },
  {
    name: 'rejected',
    what: 'an agent that refuses the task at once (REJECTED): the workflow fails as RemoteTaskRejected',
    run: (ctx, id) =>
      withAgent(startCodeReviewer(), async (a) => {
        const h = await ctx.start(id, { agent: reviewer(a), message: { text: 'Please review my work' } });
        await h.result().catch(() => undefined);
        return h;
      }),
  },
  {
    name: 'question-answered',
    what: 'one question (INPUT_REQUIRED) answered by the answer update, JSON-RPC',
    run: (ctx, id) => withAgent(startCodeReviewer(), async (a) => answerTurns(await ctx.start(id, { agent: reviewer(a), message: { text: DIFF } }), ['main'])),
  },
  {
    name: 'question-answered-http-json',
    what: 'one question answered, the agent preferring HTTP+JSON',
    run: (ctx, id) =>
      withAgent(startCodeReviewer({ preferredBinding: 'HTTP+JSON' }), async (a) =>
        answerTurns(await ctx.start(id, { agent: reviewer(a), message: { text: DIFF } }), ['main']),
      ),
  },
  {
    name: 'question-answered-by-signal',
    what: 'one question answered by the answer signal (as from the Temporal UI)',
    run: (ctx, id) =>
      withAgent(startCodeReviewer(), async (a) => {
        const h = await ctx.start(id, { agent: reviewer(a), message: { text: DIFF } });
        await statusWhere(h, (x) => x.waitingOn === 'human', 'the question');
        await h.signal('answer', { text: 'develop' });
        await h.result();
        return h;
      }),
  },
  {
    name: 'asks-twice',
    what: 'two questions on the same task, each answered with its turn, HTTP+JSON',
    run: (ctx, id) =>
      withAgent(startCodeReviewer({ questions: 2, preferredBinding: 'HTTP+JSON' }), async (a) =>
        answerTurns(await ctx.start(id, { agent: reviewer(a), message: { text: DIFF } }), ['main', 'yes']),
      ),
  },
  {
    name: 'input-reminded',
    what: 'an input deadline with remind: one reminder alert (a timer), then the answer',
    run: (ctx, id) =>
      withAgent(startCodeReviewer(), async (a) => {
        const h = await ctx.start(id, {
          agent: reviewer(a),
          message: { text: DIFF },
          policies: { input: { after: '1s', onDeadline: 'remind', remindEvery: '1s' } },
        });
        await alerts(ctx, h, 2);
        return answerTurns(h, ['main']);
      }),
  },
  {
    name: 'approval-stream',
    what: 'one approval (AUTH_REQUIRED) seen on the SubscribeToTask stream, JSON-RPC',
    run: (ctx, id) =>
      withAgent(startDeployer(), async (a) => approveRounds(ctx, await ctx.start(id, { agent: deployer(a), message: { text: DEPLOY } }), a, 1)),
  },
  {
    name: 'approval-stream-http-json',
    what: 'one approval seen on the stream, the agent preferring HTTP+JSON',
    run: (ctx, id) =>
      withAgent(startDeployer({ preferredBinding: 'HTTP+JSON' }), async (a) =>
        approveRounds(ctx, await ctx.start(id, { agent: deployer(a), message: { text: DEPLOY } }), a, 1),
      ),
  },
  {
    name: 'approval-slow-agent',
    what: 'one approval, the agent working 620 ms after it (longer than the watch\'s 200 ms coalesce): WORKING is reported before COMPLETED',
    run: (ctx, id) =>
      withAgent(startDeployer({ workMs: 600 }), async (a) => approveRounds(ctx, await ctx.start(id, { agent: deployer(a), message: { text: DEPLOY } }), a, 1)),
  },
  {
    name: 'two-approvals',
    what: 'two AUTH_REQUIRED rounds on one task, each alerted and approved, streaming',
    run: (ctx, id) =>
      withAgent(startDeployer({ authRounds: 2 }), async (a) =>
        approveRounds(ctx, await ctx.start(id, { agent: deployer(a), message: { text: DEPLOY } }), a, 2),
      ),
  },
  {
    name: 'approval-polling',
    what: 'one approval seen by GetTask polling (an agent with streaming off)',
    run: (ctx, id) =>
      withAgent(startDeployer({ streaming: false }), async (a) =>
        approveRounds(
          ctx,
          await ctx.start(id, { agent: deployer(a), message: { text: DEPLOY }, policies: { watch: { pollInitial: '200ms', pollMax: '1s' } } }),
          a,
          1,
        ),
      ),
  },
  {
    name: 'cancelled-input',
    what: 'the workflow cancelled while it waits for an answer: CancelTask to the agent, run ends cancelled',
    run: (ctx, id) => withAgent(startCodeReviewer(), async (a) => cancelWhile(await ctx.start(id, { agent: reviewer(a), message: { text: DIFF } }), 'human')),
  },
  {
    name: 'cancelled-auth',
    what: 'the workflow cancelled while it waits for an approval (watch running): CancelTask, run ends cancelled',
    run: (ctx, id) =>
      withAgent(startDeployer(), async (a) => {
        const h = await ctx.start(id, { agent: deployer(a), message: { text: DEPLOY } });
        await alerts(ctx, h, 1);
        return cancelWhile(h, 'operator');
      }),
  },
  {
    name: 'push-approval',
    what: 'one approval learnt through a push notification (config registered, backstop poll, config deleted)',
    run: (ctx, id) =>
      withAgent(startDeployer({ pushNotifications: true }), async (a) =>
        approveRounds(ctx, await ctx.start(id, { agent: deployer(a), message: { text: DEPLOY } }, { push: true }), a, 1),
      ),
  },
];

async function main(): Promise<void> {
  const outArg = process.argv[2];
  if (!outArg) throw new Error('usage: tsx scripts/record-histories.ts <output folder, e.g. test/histories/v2> [scenario ...]');
  const out = resolve(outArg);
  const only = new Set(process.argv.slice(3));
  const unknown = [...only].filter((n) => !scenarios.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${scenarios.map((s) => s.name).join(', ')}`);
  mkdirSync(out, { recursive: true });

  const dir = mkdtempSync(join(tmpdir(), 'record-histories-'));
  const server = await startDevServer({ dbFile: join(dir, 'temporal.sqlite'), uiPort: false, logFile: join(dir, 'temporal.log'), log: console.error });
  const logger = pino({ level: 'error' });
  installRuntime(logger);
  const stops: Array<() => Promise<unknown>> = [() => server.stop()];
  try {
    const { code } = await plannerBundle();
    const bundle = join(dir, 'workflow-bundle.js');
    writeFileSync(bundle, code);
    const connection = await connectClient(temporalTarget({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace }, {}));
    const client = new Client({ connection, namespace: server.namespace });
    stops.unshift(() => connection.close());
    const sink = await startAlertSink();
    stops.unshift(() => sink.close());
    const receiver = await startPushReceiver({ temporal: client, secret: PUSH_SECRET, logger });
    stops.unshift(() => receiver.close());

    const env = (queue: string, extra: Record<string, string> = {}) => ({
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      PLANNER_TASK_QUEUE: queue,
      PLANNER_WORKFLOW_BUNDLE: bundle,
      PLANNER_ALERT_SINKS: 'webhook',
      PLANNER_ALERT_WEBHOOK_URL: sink.url,
      PLANNER_LOG_LEVEL: 'error',
      ...extra,
    });
    for (const [queue, extra] of [
      ['record', {}],
      ['record-push', { PLANNER_WEBHOOK_BASE_URL: receiver.url, PLANNER_WEBHOOK_SECRET: PUSH_SECRET }],
    ] as const) {
      const workers = await createPlannerWorkers(loadConfig(env(queue, extra)), logger);
      const running = workers.run();
      stops.unshift(async () => {
        workers.shutdown();
        await running;
      });
    }

    const ctx: Ctx = {
      client,
      sink,
      start: (id, input, opts) => startDelegatedTask(client, input, { taskQueue: opts?.push ? 'record-push' : 'record', workflowId: id }),
    };
    for (const s of scenarios) {
      if (only.size && !only.has(s.name)) continue;
      const started = Date.now();
      const h = await s.run(ctx, `history-${s.name}`);
      const history = await h.fetchHistory();
      const file = join(out, `${s.name}.json`);
      // One event per line: small, and a diff between two recordings stays readable.
      const { events } = historyToJson(history);
      writeFileSync(file, `{"events": [\n${events.map((e) => JSON.stringify(e)).join(',\n')}\n]}\n`);
      console.log(`${s.name}: ${events.length} events, ${Date.now() - started} ms -> ${file}`);
    }
  } finally {
    for (const stop of stops) await stop().catch((err: unknown) => console.error(err));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof Error ? err.stack : err);
      process.exit(1);
    },
  );
}
