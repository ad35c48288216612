// PlanWorkflow: a plan's steps, each a DelegatedTaskWorkflow child, run in dependency order
// (independent steps at once). Outputs flow into later steps' messages; a failed step stops the
// plan or only its dependents, as the step says; cancelling the plan cancels its children, and
// through them the agents' tasks. The plan shows the most urgent wait among its steps.
//
// This file is the table of contents: each message is routed to the method that handles it
// (state.ts: the plan and its steps; a2a-task.ts: the plan as an A2A task; a2a-push.ts: its
// webhooks), then the loop starts what is ready, skips what never can start, publishes
// (publish.ts), and waits for the next change.
import { CancellationScope, allHandlersFinished, condition, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import { hasPatch } from '../versions';
import { PlanPushRecord } from './a2a-push';
import { PlanTaskRecord, parseA2a } from './a2a-task';
import {
  createPushConfigUpdate,
  deletePushConfigUpdate,
  planAnswerSignal,
  planStatusQuery,
  planTaskQuery,
  pushConfigsQuery,
  stepChangedSignal,
  upstreamMessageUpdate,
  type PlanResult,
  type PlanWorkflowInput,
} from './messages';
import { PlanPublisher } from './publish';
import { PlanRunState } from './state';
import { parseInput } from './step-input';

export async function PlanWorkflow(raw: PlanWorkflowInput): Promise<PlanResult> {
  const plan = new PlanRunState(parseInput(raw), workflowInfo().workflowId);
  // Every handler is set before the first await.
  setHandler(planStatusQuery, () => plan.status());
  setHandler(stepChangedSignal, (change) => plan.stepChanged(change), { description: "A step's task reports what it now waits on (sent by the child)." });
  setHandler(planAnswerSignal, (answer) => plan.answerStep(answer), { description: 'Answer the question a step waits on: { stepId, text | data, turn? }.' });

  // A plan started over A2A serves its task, and takes the upstream's answers.
  const a2a = parseA2a(raw);
  const task = a2a ? new PlanTaskRecord(plan, a2a) : undefined;
  if (task) {
    setHandler(planTaskQuery, () => task.task());
    setHandler(upstreamMessageUpdate, (upstream) => task.receive(upstream), {
      validator: (upstream) => task.checkMessage(upstream),
      description: "A message from the upstream A2A caller on the plan's task: the answer to the question it was asked.",
    });
  }
  // Push notifications to upstream webhooks came later: plans started before them have none.
  const push = a2a && hasPatch('a2a-upstream-push') ? new PlanPushRecord(plan.planId, a2a.pushConfigs, a2a.maxPushConfigs) : undefined;
  if (push) {
    setHandler(pushConfigsQuery, () => push.list());
    setHandler(createPushConfigUpdate, (config) => push.create(config), {
      validator: (config) => push.checkConfig(config),
      description: 'Register a webhook for this A2A task: { url, scheme?, sealed? } (the face seals its secrets); it gets every later status and artifact.',
    });
    setHandler(deletePushConfigUpdate, (which) => push.delete(which), { description: 'Remove a webhook (idempotent).' });
  }
  const publisher = new PlanPublisher(plan, task, push);

  try {
    for (;;) {
      // Start what can start and settle what never will, until nothing more changes at once.
      for (let changed = true; changed; ) {
        changed = false;
        for (const run of plan.ready()) {
          plan.startStep(run);
          changed = true;
        }
        for (const [run, why] of plan.blocked()) {
          run.end('skipped', `not started: ${why}`);
          changed = true;
        }
        const failed = plan.failureThatStops();
        if (failed) {
          plan.stopAll(`step ${failed.step.id} failed`);
          changed = true;
        }
      }
      publisher.publish();
      if (!plan.running()) break; // nothing ready, nothing blocked, nothing running: every step has ended
      const seen = plan.version;
      await condition(() => plan.version !== seen);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled: every child is being cancelled with us; wait until each has closed.
    plan.markCancelled();
    await CancellationScope.nonCancellable(async () => {
      await condition(() => !plan.running());
      plan.skipPendingAfterCancel();
      publisher.publish();
      await push?.drained();
      await condition(allHandlersFinished);
    });
    throw err;
  }
  publisher.publish();
  await push?.drained();
  await condition(allHandlersFinished);
  return plan.outcome();
}
