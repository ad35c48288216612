// The API's wire types: every body, query and path parameter is parsed with these at the edge, and
// docs/openapi.json is generated from them (server/api/openapi.ts), so the two cannot drift apart.
// Request bodies are strict objects: a misspelt or unknown field is an error naming its path.
import { z } from 'zod';

// ---- shared -------------------------------------------------------------------------------------

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum(['invalid_request', 'unauthenticated', 'not_found', 'conflict', 'limit_exceeded', 'payload_too_large', 'unsupported_media_type', 'unavailable', 'timeout', 'internal']),
      message: z.string().meta({ description: 'What is wrong, naming the field path and the problem with its value.' }),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'Error' });

/** A workflow id as it appears in a path: anything but empty, control characters or absurd lengths. */
export const WorkflowId = z
  .string()
  .min(1)
  .max(1000)
  .regex(/^[^\p{Cc}]+$/u, 'control characters are not allowed')
  .meta({ description: 'The Temporal workflow id of a delegated task.' });

export const TaskState = z.enum([
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

const UiUrl = z.string().meta({ description: 'The workflow in the Temporal UI (PLANNER_UI_URL).' });

// ---- health -------------------------------------------------------------------------------------

export const HealthSchema = z.object({ ok: z.literal(true) }).meta({ id: 'Health' });

export const ReadySchema = z.object({ ready: z.literal(true) }).meta({ id: 'Ready' });

// ---- tasks --------------------------------------------------------------------------------------

export const TaskParams = z.strictObject({ workflowId: WorkflowId });

export const AnswerBodySchema = z
  .strictObject({
    text: z
      .string()
      .min(1)
      .max(100_000)
      .refine((t) => t.trim() !== '', 'must not be empty or blank')
      .optional()
      .meta({ description: 'The answer as text.' }),
    data: z.unknown().optional().meta({ description: 'The answer as structured data (a JSON value).' }),
    turn: z.int().min(1).optional().meta({ description: 'The question turn this answers (from the inbox or the task); a stale turn gets 409.' }),
  })
  .refine((a) => (a.text !== undefined) !== (a.data !== undefined), { message: 'give exactly one of text or data' })
  .meta({ id: 'AnswerBody' });

export const AnswerResultSchema = z
  .object({
    workflowId: z.string(),
    turn: z.int().meta({ description: 'The question turn that was answered.' }),
    state: TaskState.meta({ description: "The agent's state after it received the answer." }),
    text: z.string().optional().meta({ description: "The agent's status text: its next question, an approval request, or progress." }),
    uiUrl: UiUrl,
  })
  .meta({ id: 'AnswerResult' });

export const AnswerPendingSchema = z
  .object({
    workflowId: z.string().meta({ description: "The answered task's workflow (a plan step's task for the step route)." }),
    planId: z.string().optional(),
    stepId: z.string().optional(),
    turn: z.int().optional().meta({ description: 'The question turn the answer names, when it named one.' }),
    accepted: z.literal(true).meta({ description: 'The task took the answer: it is durable and on its way to the agent.' }),
    pending: z.literal('agent-reply').meta({ description: "What has not happened yet: the agent's reply to the answer." }),
    message: z.string().meta({ description: 'What happened and where to look next, naming PLANNER_ANSWER_WAIT.' }),
    uiUrl: UiUrl,
  })
  .meta({ id: 'AnswerPending', description: "202: the answer was accepted, but the agent had not replied within PLANNER_ANSWER_WAIT." });

const WatchProblemSchema = z.object({ kind: z.literal('unreachable'), since: z.string(), error: z.string() });

export const ArtifactSummarySchema = z
  .object({
    artifactId: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    parts: z.int(),
    bytes: z.int(),
    preview: z.string(),
  })
  .meta({ id: 'ArtifactSummary' });

export const TaskSchema = z
  .object({
    workflowId: z.string(),
    runId: z.string(),
    workflowStatus: z.string().meta({ description: "Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, ..." }),
    taskQueue: z.string(),
    startTime: z.string(),
    closeTime: z.string().optional(),
    agent: z.string().optional(),
    planId: z.string().optional(),
    taskId: z.string().optional().meta({ description: "The agent's A2A task id." }),
    contextId: z.string().optional(),
    state: TaskState.optional(),
    waitingOn: z.enum(['human', 'operator', 'agent', 'none']).optional(),
    text: z.string().optional().meta({ description: 'The question, the approval request or the last status text.' }),
    turn: z.int().optional(),
    authRounds: z.int().optional(),
    lastUpdate: z.string().optional(),
    watchProblem: WatchProblemSchema.optional(),
    unresolvedSend: z.string().optional(),
    continuedAsNew: z.int().optional(),
    statusQueryError: z.string().optional(),
    failure: z.string().optional(),
    artifacts: z.array(ArtifactSummarySchema).optional(),
    resultError: z.string().optional(),
    uiUrl: UiUrl,
  })
  .meta({ id: 'Task' });

// ---- inbox --------------------------------------------------------------------------------------

export const PageSize = z.coerce.number().int().min(1).max(500).default(50);

export const InboxQuerySchema = z.strictObject({
  pageSize: PageSize.meta({ description: 'Entries per page (1-500, default 50).' }),
  pageToken: z.string().min(1).max(2000).optional().meta({ description: 'nextPageToken of the previous page.' }),
  planId: z.string().min(1).max(200).optional().meta({ description: "Only this plan's waits." }),
});

export const InboxEntrySchema = z
  .object({
    workflowId: z.string(),
    runId: z.string(),
    agent: z.string(),
    planId: z.string().optional(),
    stepId: z.string().optional().meta({ description: 'The plan step this task runs; answer it with POST /v1/plans/{planId}/steps/{stepId}/answer.' }),
    waitingOn: z.enum(['human', 'operator', 'agent']).meta({ description: "agent: the planner waits on the agent's reply or work (how long: waitingSince)." }),
    turn: z.int().optional(),
    authRounds: z.int().optional(),
    taskId: z.string().optional(),
    state: z.string().optional(),
    text: z.string().optional().meta({ description: "The question or the approval request, in the agent's words." }),
    waitingSince: z.string(),
    statusQueryError: z.string().optional(),
    uiUrl: UiUrl,
  })
  .meta({ id: 'InboxEntry' });

export const InboxPageSchema = z
  .object({
    entries: z.array(InboxEntrySchema).meta({ description: 'Oldest wait first.' }),
    nextPageToken: z.string().optional().meta({ description: 'Present when there are more entries.' }),
  })
  .meta({ id: 'InboxPage' });

// ---- artifacts ----------------------------------------------------------------------------------

export const ArtifactParams = z.strictObject({
  workflowId: WorkflowId,
  name: z.string().min(1).max(1000).meta({ description: "The artifact's name or artifactId." }),
});

// ---- plans --------------------------------------------------------------------------------------

const PlanIdString = z
  .string()
  .min(1)
  .max(400)
  .regex(/^[^"'\\\p{Cc}]+$/u, 'quotes, backslashes and control characters are not allowed')
  .meta({ description: 'The plan id (= its workflow id).' });
export const PlanParams = z.strictObject({ planId: PlanIdString });
export const StepParams = z.strictObject({
  planId: PlanIdString,
  stepId: z.string().min(1).max(200).meta({ description: "The step's id in the plan." }),
});

const InputValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const Inputs = z.record(z.string().min(1).max(200), InputValue).meta({ description: "The plan's inputs by name; defaults fill the rest." });
const AgentUrls = z
  .record(z.string().min(1), z.url({ protocol: /^https?$/ }))
  .meta({ description: "Agent base URLs replacing the plan's own, by agent name (e.g. a staging agent)." });

export const PlanFileBodySchema = z
  .strictObject({
    planFile: z
      .string()
      .min(1)
      .max(500)
      .meta({ description: 'A plan file (.yaml, .yml or .json) under the server\'s plan folder (PLANNER_PLAN_DIR), e.g. "release.yaml".' }),
    inputs: Inputs.optional(),
    agentUrls: AgentUrls.optional(),
  })
  .meta({ id: 'StartPlanFromFile' });

export const PlanDocumentSchema = z
  .record(z.string(), z.unknown())
  .meta({ id: 'PlanDocument', description: 'A plan document (name, description, inputs, agents, steps), as in a plan file; see docs/plans.md.' });

export const PlanDocBodySchema = z
  .strictObject({ plan: PlanDocumentSchema, inputs: Inputs.optional(), agentUrls: AgentUrls.optional() })
  .meta({ id: 'StartPlanFromDocument' });

export const StartPlanBodySchema = z
  .union([PlanFileBodySchema, PlanDocBodySchema, PlanDocumentSchema])
  .meta({ description: '{planFile, inputs}, {plan, inputs}, or a bare plan document (which then runs with its defaults).' });

export const StartedPlanSchema = z
  .object({ planId: z.string(), workflowId: z.string(), uiUrl: UiUrl })
  .meta({ id: 'StartedPlan' });

const PlanStepSchema = z
  .object({
    id: z.string(),
    agent: z.string(),
    state: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled', 'skipped']),
    dependsOn: z.array(z.string()),
    workflowId: z.string().optional(),
    taskId: z.string().optional(),
    remoteState: TaskState.optional(),
    waitingOn: z.enum(['human', 'operator', 'agent', 'none']),
    text: z.string().optional().meta({ description: "The question, the approval request, or the agent's last status text." }),
    turn: z.int(),
    startedAt: z.string().optional(),
    endedAt: z.string().optional(),
    reason: z.string().optional(),
    artifacts: z.array(z.string()).optional(),
    uiUrl: UiUrl.optional(),
  })
  .meta({ id: 'PlanStep' });

export const PlanSchema = z
  .object({
    planId: z.string(),
    workflowId: z.string(),
    runId: z.string(),
    workflowStatus: z.string(),
    startTime: z.string(),
    closeTime: z.string().optional(),
    name: z.string().optional(),
    description: z.string().optional(),
    state: z.enum(['running', 'completed', 'failed', 'cancelled']).optional(),
    waitingOn: z.enum(['human', 'operator', 'agent', 'none']).optional(),
    inputs: z.record(z.string(), z.string()).optional(),
    steps: z.array(PlanStepSchema).optional(),
    startedAt: z.string().optional(),
    failure: z.string().optional(),
    result: z.unknown().optional().meta({ description: "A closed plan's result: each step's outcome and artifacts." }),
    statusQueryError: z.string().optional(),
    uiUrl: UiUrl,
  })
  .meta({ id: 'Plan' });

export const PlanListQuerySchema = z.strictObject({
  status: z.enum(['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out', 'continued_as_new']).optional(),
  waitingOn: z.enum(['human', 'operator', 'agent', 'none']).optional(),
  pageSize: PageSize.meta({ description: 'Plans per page (1-500, default 50).' }),
  pageToken: z.string().min(1).max(4000).optional().meta({ description: 'nextPageToken of the previous page.' }),
});

export const PlanListItemSchema = z
  .object({
    planId: z.string(),
    runId: z.string(),
    workflowStatus: z.string(),
    waitingOn: z.string().optional(),
    startTime: z.string().optional(),
    closeTime: z.string().optional(),
    uiUrl: UiUrl,
  })
  .meta({ id: 'PlanListItem' });

export const PlanPageSchema = z
  .object({ plans: z.array(PlanListItemSchema).meta({ description: 'Newest first.' }), nextPageToken: z.string().optional() })
  .meta({ id: 'PlanPage' });

export const StepAnswerResultSchema = z
  .object({
    planId: z.string(),
    stepId: z.string(),
    turn: z.int(),
    state: TaskState,
    text: z.string().optional(),
    uiUrl: UiUrl,
  })
  .meta({ id: 'StepAnswerResult' });

export const CancelResultSchema = z.object({ planId: z.string(), cancelRequested: z.literal(true), uiUrl: UiUrl }).meta({ id: 'CancelResult' });

// ---- schedules ----------------------------------------------------------------------------------

export const ScheduleParams = z.strictObject({ scheduleId: z.string().min(1).max(200) });

export const CreateScheduleBodySchema = z
  .strictObject({
    scheduleId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'letters, digits, ".", "_" or "-", at most 200'),
    every: z
      .union([z.int().positive(), z.string().regex(/^\d+(\.\d+)?\s*(ms|s|m|h|d)$/, 'a duration such as "2s", "15m", "24h"')])
      .optional()
      .meta({ description: 'Start a plan every interval ("2s", "15m", "24h", or milliseconds).' }),
    cron: z.string().min(1).max(200).optional().meta({ description: 'Start a plan on a cron expression (UTC), e.g. "0 3 * * 1-5".' }),
    overlap: z.enum(['skip', 'buffer_one', 'allow_all']).default('skip').meta({ description: 'A run still going at the next time: skip (default), buffer one, allow all.' }),
    planFile: z.string().min(1).max(500).optional().meta({ description: 'A plan file under PLANNER_PLAN_DIR.' }),
    plan: PlanDocumentSchema.optional(),
    inputs: Inputs.optional(),
    agentUrls: AgentUrls.optional(),
    note: z.string().max(1000).optional(),
  })
  .refine((b) => (b.every === undefined) !== (b.cron === undefined), { message: 'give exactly one of every or cron' })
  .refine((b) => (b.planFile === undefined) !== (b.plan === undefined), { message: 'give exactly one of planFile or plan' })
  .meta({ id: 'CreateSchedule' });

export const ScheduleSchema = z
  .object({
    scheduleId: z.string(),
    plan: z.string().optional(),
    every: z.string().optional(),
    cron: z.string().optional(),
    overlap: z.enum(['skip', 'buffer_one', 'allow_all']),
    paused: z.boolean(),
    note: z.string().optional(),
    recentPlans: z.array(z.object({ planId: z.string(), scheduledAt: z.string(), startedAt: z.string(), uiUrl: UiUrl })),
    nextTimes: z.array(z.string()),
    actionsTaken: z.int(),
  })
  .meta({ id: 'Schedule' });

export const ScheduleListSchema = z.object({ schedules: z.array(ScheduleSchema) }).meta({ id: 'ScheduleList' });

export const ScheduleTriggerResultSchema = z.object({ scheduleId: z.string(), triggered: z.literal(true) }).meta({ id: 'ScheduleTriggerResult' });
