// Starting and answering delegated tasks from outside the worker (API, CLI, tests). Input is parsed
// here, at the edge, so a caller learns which field is wrong before anything starts.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { DelegatedTaskWorkflow } from '../workflows/delegated-task/workflow';
import { refusedAgentUrls } from '../a2a/outbound-policy';
import { describeIssues, formatPath } from '../a2a/validate';
import { DelegatedTaskInputSchema, type DelegatedTaskInput } from '../workflows/delegated-task/input';
import {
  answerUpdate,
  resolveSendUpdate,
  type Answer,
  type AnswerResult,
  type DelegatedTaskStatus,
  type SendResolution,
} from '../workflows/delegated-task/messages';
import { A2aAgent, PlanId, PlannerWaitingOn } from '../workflows/search-attributes';

export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
}

export interface StartOptions {
  taskQueue: string;
  workflowId?: string;
}

/** The one-line summary the Temporal UI shows: the agent and the message's first line. */
export function summaryOf(input: DelegatedTaskInput): string {
  const firstLine = (input.message.text ?? JSON.stringify(input.message.data) ?? '').split('\n')[0]!.trim();
  const clipped = firstLine.length > 120 ? `${firstLine.slice(0, 117)}...` : firstLine;
  return `${input.agent.name}: ${clipped}`;
}

export async function startDelegatedTask(
  client: Client,
  raw: unknown,
  opts: StartOptions,
): Promise<WorkflowHandle<typeof DelegatedTaskWorkflow>> {
  const parsed = DelegatedTaskInputSchema.safeParse(raw);
  if (!parsed.success) throw new InvalidInputError(`invalid delegated task: ${describeIssues(parsed.error, raw)}`);
  // The parsed input, defaults filled in, is what the history records: the workflow never
  // re-applies a default on replay, so changing a default cannot break a running workflow.
  const input: DelegatedTaskInput = parsed.data;
  const refused = refusedAgentUrls(input.agent);
  if (refused.length > 0) throw new InvalidInputError(`invalid delegated task: ${refused.map((p) => `agent.${formatPath(p.path)}: ${p.message}`).join('; ')}`);
  return client.workflow.start(DelegatedTaskWorkflow, {
    taskQueue: opts.taskQueue,
    workflowId: opts.workflowId ?? `task-${parsed.data.agent.name}-${randomUUID()}`,
    args: [input],
    staticSummary: summaryOf(input),
    typedSearchAttributes: [
      { key: A2aAgent, value: parsed.data.agent.name },
      { key: PlannerWaitingOn, value: 'none' },
      ...(parsed.data.planId ? [{ key: PlanId, value: parsed.data.planId }] : []),
    ],
  });
}

export function answerTask(client: Client, workflowId: string, answer: Answer): Promise<AnswerResult> {
  return client.workflow.getHandle(workflowId).executeUpdate(answerUpdate, { args: [answer] });
}

/** The operator's decision on a first message whose reply was lost (`status.unresolvedSend`). */
export function resolveSend(client: Client, workflowId: string, resolution: SendResolution): Promise<DelegatedTaskStatus> {
  return client.workflow.getHandle(workflowId).executeUpdate(resolveSendUpdate, { args: [resolution] });
}
