// The planner's workers: one on the main queue (workflows, sends, cancels, alerts), one on the
// watch queue, whose slots are many because each watch lease holds one mostly idle stream, one
// on this process's own queue, where the shared watch's hold heartbeats for the streams it keeps,
// and one on the hubs queue, where every process runs the watch hub workflows and their hand-overs.
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { Runtime, Worker, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities } from '../activities';
import { AgentDirectory } from '../activities/agents';
import { SharedWatch } from '../activities/shared-watch';
import { EarlySubscriptions } from '../activities/early-subscriptions';
import { payloadSettings, plannerDataConverter } from '../payloads/data-converter';
import { pushSettings, type PlannerConfig } from '../runtime/config';
import { connectClient, connectWorker, temporalTarget } from '../runtime/temporal-connection';
import { startWaitGauges } from './wait-gauges';
import { tracingClientInterceptors, tracingSinks, tracingWorkerInterceptors } from '../runtime/temporal-tracing';
import { startTracing } from '../runtime/tracing';
import { bundlePlannerWorkflows } from './workflow-bundle';

/**
 * At most this many long polls on a queue. The SDK (1.24) reads only the poller behaviours: its
 * `maxConcurrent*TaskPolls` are ignored, and every queue got 10 polls, each a server request a
 * minute while idle (test/worker-pollers.test.ts).
 */
const polls = (maximum: number): NonNullable<WorkerOptions['activityTaskPollerBehavior']> => ({ type: 'simple-maximum', maximum });

export interface PlannerWorkers {
  workers: Worker[];
  /** Runs until shutdown() (or a fatal error), then closes connections. */
  run(): Promise<void>;
  shutdown(): void;
}

export interface PlannerWorkerOptions {
  /** The workflows, bundled already (see workflow-bundle.ts); ignored when PLANNER_WORKFLOW_BUNDLE names a file. */
  workflowBundle?: WorkflowBundle;
  /**
   * The environment `config` was read from (default process.env): Temporal's client settings
   * (TLS, API key, profile) come from it too (runtime/temporal-connection.ts).
   */
  env?: NodeJS.ProcessEnv;
}

export async function createPlannerWorkers(config: PlannerConfig, logger: Logger, opts: PlannerWorkerOptions = {}): Promise<PlannerWorkers> {
  // Bundled before any connection opens, so a bundling error leaves nothing to close.
  const workflowSource: Pick<WorkerOptions, 'workflowBundle'> = {
    workflowBundle: config.PLANNER_WORKFLOW_BUNDLE ? { codePath: config.PLANNER_WORKFLOW_BUNDLE } : (opts.workflowBundle ?? (await bundlePlannerWorkflows())),
  };
  // OTEL_* in the environment turn tracing on for this process (runtime/tracing.ts, docs/tracing.md).
  const tracing = startTracing(opts.env ?? process.env, 'a2a-planner-worker');
  const target = temporalTarget(config, opts.env ?? process.env);
  const namespace = target.namespace;
  const connection = await connectWorker(target);
  const clientConnection = await connectClient(target);
  // Large payloads go to the blob store, on both sides: the workers' own and the activities' signals.
  const dataConverter = plannerDataConverter(payloadSettings(config));
  const temporal = new Client({ connection: clientConnection, namespace, dataConverter, interceptors: tracingClientInterceptors(tracing) });
  // An agent may send whatever one payload may hold; the codec keeps it out of history.
  const agents = new AgentDirectory({ maxFrameBytes: config.PLANNER_PAYLOAD_MAX_BYTES, maxResponseBytes: config.PLANNER_PAYLOAD_MAX_BYTES });
  // Named per process: a restarted worker is a new hub, and the dead one's waits are handed over.
  const hubId = randomUUID();
  const hubQueue = `${config.PLANNER_TASK_QUEUE}-hub-${hubId}`;
  const hubsQueue = `${config.PLANNER_TASK_QUEUE}-hubs`;
  const sharedWatch = config.PLANNER_SHARED_WATCH === 'on'
    ? new SharedWatch(agents, temporal, { hubId, hubsQueue, hubQueue, heartbeatTimeout: config.PLANNER_SHARED_WATCH_HEARTBEAT as Duration, max: config.PLANNER_WATCH_SLOTS }, logger)
    : undefined;
  const earlySubscriptions = new EarlySubscriptions();
  // Read by a first send when its task stops at AUTH_REQUIRED: nothing in flight but that send (its
  // own activation has ended). The main worker is made after its activities, so it is looked up late.
  const built: { main?: Worker } = {};
  const idle = (): boolean => {
    const status = built.main?.getStatus();
    return status !== undefined && status.numInFlightWorkflowActivations === 0 && status.numInFlightLocalActivities <= 1;
  };
  const activities = createActivities({
    temporal,
    agents,
    alerts: {
      sinks: config.PLANNER_ALERT_SINKS,
      webhookUrl: config.PLANNER_ALERT_WEBHOOK_URL,
      uiUrl: config.PLANNER_UI_URL,
      namespace,
    },
    logger,
    push: pushSettings(config),
    webhookSecret: config.PLANNER_WEBHOOK_SECRET,
    sharedWatch,
    earlySubscriptions,
    idle,
  });
  // handOverWatches stays on the main queue too: hub workflows started before the hubs queue
  // existed run there, and schedule their hand-overs there.
  const { watchTask, watchRemoteTask, holdWatchHub, ...mainActivities } = activities;
  const main = await Worker.create({
    connection,
    namespace,
    taskQueue: config.PLANNER_TASK_QUEUE,
    ...workflowSource,
    dataConverter,
    activities: mainActivities,
    interceptors: tracingWorkerInterceptors(tracing),
    sinks: tracingSinks(tracing),
    maxCachedWorkflows: config.PLANNER_MAX_CACHED_WORKFLOWS,
    stickyQueueScheduleToStartTimeout: config.PLANNER_STICKY_TIMEOUT as Duration,
    maxConcurrentWorkflowTaskExecutions: config.PLANNER_WORKFLOW_SLOTS,
    maxConcurrentActivityTaskExecutions: config.PLANNER_ACTIVITY_SLOTS,
    workflowTaskPollerBehavior: polls(Math.min(config.PLANNER_WORKFLOW_POLLERS, config.PLANNER_WORKFLOW_SLOTS)),
    activityTaskPollerBehavior: polls(Math.min(config.PLANNER_ACTIVITY_POLLERS, config.PLANNER_ACTIVITY_SLOTS)),
    // A send in flight finishes (its result recorded) rather than being cut and reconciled by another worker.
    shutdownGraceTime: config.PLANNER_SHUTDOWN_GRACE as WorkerOptions['shutdownGraceTime'],
  });
  const watch = await Worker.create({
    connection,
    namespace,
    taskQueue: `${config.PLANNER_TASK_QUEUE}-watch`,
    dataConverter,
    activities: { watchTask, watchRemoteTask },
    interceptors: tracingWorkerInterceptors(tracing),
    maxConcurrentActivityTaskExecutions: config.PLANNER_WATCH_SLOTS,
    // Activities that hold streams for weeks must not cost a poller each; a few pollers fill many slots.
    activityTaskPollerBehavior: polls(Math.min(config.PLANNER_WATCH_POLLERS, config.PLANNER_WATCH_SLOTS)),
    // A watch never finishes on its own: it is cancelled after 2 s and its retry resumes the
    // wait on another worker (a watch keeps nothing that GetTask cannot tell again).
    shutdownGraceTime: '2s',
  });
  built.main = main;
  // The hold is cancelled at once on shutdown, so the hub hands the waits over while others still run.
  const hub = sharedWatch
    ? await Worker.create({ connection, namespace, taskQueue: hubQueue, dataConverter, activities: { holdWatchHub }, activityTaskPollerBehavior: polls(1), shutdownGraceTime: 0 })
    : undefined;
  // A dead worker's hub workflow learns of the death on its sticky queue, where nobody polls any
  // more: its next task waits out the sticky timeout before a live worker replays it. The main
  // queue's 5 s protects busy plans from replays; the hubs, a few workflows whose sticky poll is
  // always waiting, fall back after 0.5 s: a dead hub is replayed 0.5 s after its hold times out.
  const hubs = sharedWatch
    ? await Worker.create({
        connection,
        namespace,
        taskQueue: hubsQueue,
        ...workflowSource,
        dataConverter,
        activities: { handOverWatches: activities.handOverWatches },
        interceptors: tracingWorkerInterceptors(tracing),
        sinks: tracingSinks(tracing),
        stickyQueueScheduleToStartTimeout: '500ms',
        // Its sticky queue and the shared one: the fewest polls the SDK splits between the two.
        workflowTaskPollerBehavior: polls(2),
        activityTaskPollerBehavior: polls(1),
        shutdownGraceTime: config.PLANNER_SHUTDOWN_GRACE as WorkerOptions['shutdownGraceTime'],
      })
    : undefined;
  const workers = hub && hubs ? [main, watch, hub, hubs] : [main, watch];
  return {
    workers,
    shutdown: () => {
      sharedWatch?.close();
      workers.forEach((w) => w.getState() === 'RUNNING' && w.shutdown());
    },
    async run() {
      // The wait gauges go where the SDK's metrics go, when there is such an endpoint (worker/wait-gauges.ts).
      const gauges = config.PLANNER_METRICS_ADDRESS ? startWaitGauges(temporal, config.PLANNER_TASK_QUEUE, Runtime.instance().metricMeter, logger, config.PLANNER_METRICS_SAMPLE_MS) : undefined;
      try {
        await Promise.all(workers.map((w) => w.run()));
      } finally {
        sharedWatch?.close();
        earlySubscriptions.closeAll();
        await gauges?.stop();
        await agents.close();
        await connection.close();
        await clientConnection.close();
        await tracing?.flush();
      }
    },
  };
}
