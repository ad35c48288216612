// All I/O of the planner's workflows. Built with their dependencies by the worker.
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { AgentDirectory } from './agents';
import { createAlertOperator, type AlertConfig } from './alert-operator';
import { createCancelRemoteTask } from './cancel-task';
import { createDeliverUpstreamPush } from './deliver-push';
import { createPushConfigActivities } from './push-config';
import { createReportStep } from './report-step';
import type { PushSettings } from './push-token';
import { createSendMessage, sendOutcomeOf } from './send-message';
import { createWatchTask } from './v1/watch-task';
import { createWatchRemoteTask } from './watch-task';
import { createGetRemoteTask } from './get-task';
import { countA2aCall } from './metrics';
import { createWatchHubActivities, type SharedWatch } from './shared-watch';
import { createObserveRun, type EarlySubscriptions } from './early-subscriptions';

export interface ActivityDeps {
  temporal: Client;
  agents: AgentDirectory;
  alerts: AlertConfig;
  logger: Logger;
  /** Set when agents can reach the planner's push receiver. */
  push?: PushSettings;
  /** PLANNER_WEBHOOK_SECRET: opens the sealed credentials of upstream callers' push configs. */
  webhookSecret?: string;
  /** The worker's shared watch, where approval rounds of agents that stream but do not push park. */
  sharedWatch?: SharedWatch;
  /** Subscriptions a streamed send opens for the approval's watch on this worker to take. */
  earlySubscriptions?: EarlySubscriptions;
  /** Whether the worker runs nothing but the asking send (activities/send-message.ts, `Beside.idle`). */
  idle?: () => boolean;
}

export function createActivities(deps: ActivityDeps) {
  const alertOperator = createAlertOperator(deps.alerts, deps.logger);
  const reportStep = createReportStep(deps.temporal);
  return {
    // Each A2A call counted by agent, method and outcome (activities/metrics.ts).
    sendMessage: countA2aCall('SendMessage', createSendMessage(deps.agents, { alert: alertOperator, report: reportStep, watch: deps.earlySubscriptions && { early: deps.earlySubscriptions, pushes: deps.push !== undefined }, observe: createObserveRun(deps.temporal), idle: deps.idle }), sendOutcomeOf),
    /** v1 workflows' watch, kept while any of them is open (activities/v1/watch-task.ts). */
    watchTask: createWatchTask(deps.agents, deps.temporal),
    watchRemoteTask: countA2aCall('SubscribeToTask', createWatchRemoteTask(deps.agents, deps.temporal, alertOperator, deps.push, deps.sharedWatch, deps.earlySubscriptions)),
    getRemoteTask: countA2aCall('GetTask', createGetRemoteTask(deps.agents)),
    cancelRemoteTask: countA2aCall('CancelTask', createCancelRemoteTask(deps.agents)),
    ...createPushConfigActivities(deps.agents, deps.push),
    /** The worker's shared watch: its heartbeat, and the hand-over of its waits when it dies. */
    ...createWatchHubActivities(deps.temporal, deps.sharedWatch),
    alertOperator,
    /** Push notifications of the planner's own A2A tasks to upstream callers' webhooks. */
    deliverUpstreamPush: createDeliverUpstreamPush(deps.logger, deps.webhookSecret),
    /** A plan step's question or end reported to its plan, as a local activity (activities/report-step.ts). */
    reportStep,
    /** Lets a workflow end as cancelled when its remote task was cancelled by someone else. */
    async cancelWorkflowRun(run: { workflowId: string; runId: string; reason: string }): Promise<void> {
      deps.logger.info(run, 'remote task cancelled elsewhere; cancelling its workflow');
      await deps.temporal.workflow.getHandle(run.workflowId, run.runId).cancel();
    },
  };
}

export type PlannerActivities = ReturnType<typeof createActivities>;
export type { Alert, AlertConfig } from './alert-operator';
export type { SendInput, SendOutcome } from './send-message';
export type { WatchInput, WatchResult } from './watch-task';
export type { PushSettings } from './push-token';
export type { UpstreamPushInput } from './deliver-push';
