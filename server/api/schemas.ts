// The API's wire types: every body, query and path parameter is parsed with these at the edge, and
// docs/openapi.json is generated from them (server/api/openapi.ts), so the two cannot drift apart.
// Request bodies are strict objects: a misspelt or unknown field is an error naming its path.
import { z } from 'zod';

// ---- shared -------------------------------------------------------------------------------------

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum(['invalid_request', 'unauthenticated', 'not_found', 'conflict', 'payload_too_large', 'unsupported_media_type', 'unavailable', 'internal']),
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

export const HealthSchema = z
  .object({
    ok: z.literal(true),
    temporal: z.object({
      reachable: z.boolean(),
      namespace: z.string(),
      error: z.string().optional(),
    }),
  })
  .meta({ id: 'Health' });

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
    waitingOn: z.enum(['human', 'operator', 'none']).optional(),
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
    waitingOn: z.enum(['human', 'operator']),
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
