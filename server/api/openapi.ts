// The OpenAPI 3.1 document, generated from the zod schemas the routes parse with (schemas.ts) by
// zod 4's z.toJSONSchema. Served at /v1/openapi.json and checked in as docs/openapi.json
// (`npm run openapi` regenerates it; a test holds the two equal).
import { z } from 'zod';
import * as S from './schemas';

type Schema = z.ZodType;

interface ResponseDoc {
  description: string;
  schema?: Schema;
  /** Default application/json; a schema-less binary body names its own type. */
  contentType?: string;
}

export interface RouteDoc {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI template: /v1/tasks/{workflowId}. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** false for the public routes (health, this document). */
  auth?: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: Array<{ name: string; description: string; required?: boolean }>;
  body?: Schema;
  responses: Record<number, ResponseDoc>;
}

const errors = (...statuses: number[]): Record<number, ResponseDoc> =>
  Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: {
          400: 'Invalid input; the message and details name each field path and what is wrong with its value.',
          401: 'Missing or wrong bearer token (WWW-Authenticate: Bearer); nothing changed.',
          404: "No such plan, task, schedule or artifact, or it is another caller's (the same answer).",
          409: 'Conflict: not waiting on a question, a stale turn, or not in a state that allows this.',
          413: 'The body is over PLANNER_API_BODY_LIMIT.',
          415: 'The body is not application/json.',
          429: 'Over a per-caller bound (PLANNER_STREAMS_PER_CALLER open streams, PLANNER_SCHEDULES_PER_CALLER schedules); the message names it. Retry-After on streams.',
          503: 'Temporal did not answer.',
          504: "The task's workflow did not take the answer within PLANNER_ANSWER_WAIT (no worker?); it may still take it.",
        }[s]!,
        schema: S.ErrorSchema,
      },
    ]),
  );

export const routes: RouteDoc[] = [
  {
    method: 'get',
    path: '/healthz',
    tag: 'meta',
    auth: false,
    summary: 'Liveness',
    responses: { 200: { description: 'The server runs (Temporal is not asked: see /readyz).', schema: S.HealthSchema } },
  },
  {
    method: 'get',
    path: '/readyz',
    tag: 'meta',
    auth: false,
    summary: 'Readiness: whether Temporal answers',
    responses: {
      200: { description: 'Temporal answered within 2 s.', schema: S.ReadySchema },
      503: { description: 'Temporal did not answer within 2 s; the message names no address (the server log has the details under the request id).', schema: S.ErrorSchema },
    },
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    tag: 'meta',
    auth: false,
    summary: 'This document',
    responses: { 200: { description: 'The OpenAPI 3.1 document.' } },
  },
  {
    method: 'get',
    path: '/v1/inbox',
    tag: 'inbox',
    summary: "Every wait on a human or an operator in the caller's plans and tasks (an operator: all of them), oldest first",
    query: S.InboxQuerySchema,
    responses: { 200: { description: 'One page of waits.', schema: S.InboxPageSchema }, ...errors(400, 401) },
  },
  {
    method: 'get',
    path: '/v1/tasks/{workflowId}',
    tag: 'tasks',
    summary: 'One delegated task: its Temporal execution, its A2A state, and its outcome once closed',
    params: S.TaskParams,
    responses: { 200: { description: 'The task.', schema: S.TaskSchema }, ...errors(400, 401, 404) },
  },
  {
    method: 'post',
    path: '/v1/tasks/{workflowId}/answer',
    tag: 'tasks',
    summary: 'Answer the question a delegated task waits on (INPUT_REQUIRED)',
    description: "Sends the answer on the agent's task and returns the agent's next state (a new question, an approval request, working, completed).",
    params: S.TaskParams,
    body: S.AnswerBodySchema,
    responses: {
      200: { description: "The agent's state after the answer.", schema: S.AnswerResultSchema },
      202: { description: 'The answer was accepted and is on its way; the agent had not replied within PLANNER_ANSWER_WAIT.', schema: S.AnswerPendingSchema },
      ...errors(400, 401, 404, 409, 413, 415, 504),
    },
  },
  {
    method: 'get',
    path: '/v1/artifacts/{workflowId}/{name}',
    tag: 'artifacts',
    summary: "A completed task's artifact, as bytes",
    description: "Content type from the artifact's first part (its mediaType; else application/json for data, text/plain for text).",
    params: S.ArtifactParams,
    responses: {
      200: { description: "The artifact's content.", contentType: '*/*' },
      ...errors(400, 401, 404),
      409: { description: 'The task is still running, or ended other than COMPLETED.', schema: S.ErrorSchema },
    },
  },
  {
    method: 'post',
    path: '/v1/plans',
    tag: 'plans',
    summary: 'Start a plan',
    description:
      'From a plan file under PLANNER_PLAN_DIR ({planFile, inputs}), or a plan document ({plan, inputs}, or the bare document). ' +
      'With an Idempotency-Key header the plan id is derived from the caller and the key: a retried POST with the same body returns the same plan (200, Idempotent-Replayed: true); ' +
      'another body under the same key is a 422. Another caller\'s same key is another plan. The plan is the caller\'s own.',
    headers: [{ name: 'Idempotency-Key', description: 'Any 1-200 printable ASCII characters; one key starts at most one plan per caller, bound to the body it came with.' }],
    body: S.StartPlanBodySchema,
    responses: {
      201: { description: 'Started.', schema: S.StartedPlanSchema },
      200: { description: 'The plan this Idempotency-Key started before, with the same body.', schema: S.StartedPlanSchema },
      422: { description: 'The Idempotency-Key was used before with another body (code idempotency_key_reused); nothing started.', schema: S.ErrorSchema },
      ...errors(400, 401, 413, 415),
    },
  },
  {
    method: 'get',
    path: '/v1/plans',
    tag: 'plans',
    summary: "List the caller's plans (an operator: every plan) from Temporal visibility, newest first",
    query: S.PlanListQuerySchema,
    responses: { 200: { description: 'One page of plans.', schema: S.PlanPageSchema }, ...errors(400, 401) },
  },
  {
    method: 'get',
    path: '/v1/plans/{planId}',
    tag: 'plans',
    summary: 'One plan: its steps with their state, question, turn and artifacts',
    params: S.PlanParams,
    responses: { 200: { description: 'The plan.', schema: S.PlanSchema }, ...errors(400, 401, 404) },
  },
  {
    method: 'post',
    path: '/v1/plans/{planId}/cancel',
    tag: 'plans',
    summary: "Cancel a plan: its steps are cancelled, and through them the agents' tasks",
    params: S.PlanParams,
    responses: { 202: { description: 'Cancellation requested.', schema: S.CancelResultSchema }, ...errors(400, 401, 404, 409) },
  },
  {
    method: 'post',
    path: '/v1/plans/{planId}/steps/{stepId}/answer',
    tag: 'plans',
    summary: 'Answer the question a plan step waits on',
    params: S.StepParams,
    body: S.AnswerBodySchema,
    responses: {
      200: { description: "The agent's state after the answer.", schema: S.StepAnswerResultSchema },
      202: { description: 'The answer was accepted and is on its way; the agent had not replied within PLANNER_ANSWER_WAIT.', schema: S.AnswerPendingSchema },
      ...errors(400, 401, 404, 409, 413, 415, 504),
    },
  },
  {
    method: 'get',
    path: '/v1/plans/{planId}/events',
    tag: 'plans',
    summary: "The plan's state changes as server-sent events",
    description:
      'event: status (the current state first, then each change; data: the Plan status), event: problem (data: {message}), ' +
      'event: end (the plan closed; data: {planId, workflowStatus, state}). Read from Temporal (history long-poll, then the status query): any replica serves it.',
    params: S.PlanParams,
    responses: { 200: { description: 'An event stream.', contentType: 'text/event-stream' }, ...errors(400, 401, 404, 429) },
  },
  {
    method: 'post',
    path: '/v1/schedules',
    tag: 'schedules',
    summary: 'Create a Temporal Schedule that starts a plan with inputs, every interval or on a cron expression',
    body: S.CreateScheduleBodySchema,
    responses: { 201: { description: 'Created.', schema: S.ScheduleSchema }, ...errors(400, 401, 409, 413, 415, 429) },
  },
  {
    method: 'get',
    path: '/v1/schedules',
    tag: 'schedules',
    summary: "The caller's schedules (an operator: every schedule that starts plans)",
    responses: { 200: { description: 'The schedules.', schema: S.ScheduleListSchema }, ...errors(401) },
  },
  {
    method: 'get',
    path: '/v1/schedules/{scheduleId}',
    tag: 'schedules',
    summary: 'One schedule, with the plans it started recently and its next times',
    params: S.ScheduleParams,
    responses: { 200: { description: 'The schedule.', schema: S.ScheduleSchema }, ...errors(401, 404) },
  },
  {
    method: 'delete',
    path: '/v1/schedules/{scheduleId}',
    tag: 'schedules',
    summary: 'Delete a schedule: no more plans start; those it started run on',
    params: S.ScheduleParams,
    responses: { 204: { description: 'Deleted.' }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/v1/schedules/{scheduleId}/trigger',
    tag: 'schedules',
    summary: "Start the schedule's plan now, as if its time had come (its overlap policy applies)",
    params: S.ScheduleParams,
    responses: { 202: { description: 'Triggered.', schema: S.ScheduleTriggerResultSchema }, ...errors(401, 404) },
  },
  {
    method: 'post',
    path: '/a2a/push/{workflowId}/{taskId}',
    tag: 'push',
    auth: false,
    summary: 'Push-notification webhook for agents (A2A StreamResponse frames)',
    description:
      'Checked against the per-task token the planner registered (X-A2A-Notification-Token or Bearer), not the API token. ' +
      'Served when PLANNER_WEBHOOK_SECRET is set. Errors are {error: string}.',
    params: z.object({ workflowId: z.string(), taskId: z.string() }),
    responses: {
      204: { description: 'Recorded in the workflow history (or nothing to record).' },
      400: { description: 'Not JSON, not a StreamResponse, or about another task.' },
      401: { description: 'Missing or wrong per-task token.' },
      404: { description: 'No such delegated task.' },
      413: { description: 'Body over 1 MiB.' },
    },
  },
];

const HTTP_REASON: Record<number, string> = { 200: 'OK', 201: 'Created', 204: 'No Content' };

/** zod → JSON Schema with named schemas hoisted into components.schemas. */
function jsonSchema(schema: Schema, io: 'input' | 'output', components: Record<string, unknown>): Record<string, unknown> {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  const text = JSON.stringify(raw).replaceAll('"#/$defs/', '"#/components/schemas/');
  const { $schema: _drop, $defs, ...rest } = JSON.parse(text) as { $schema?: string; $defs?: Record<string, unknown> } & Record<string, unknown>;
  for (const [name, def] of Object.entries($defs ?? {})) {
    const key = io === 'input' && components[name] !== undefined && JSON.stringify(components[name]) !== JSON.stringify(def) ? `${name}Input` : name;
    components[key] = def;
  }
  return rest;
}

function parameters(where: 'path' | 'query', obj: z.ZodObject | undefined, components: Record<string, unknown>): unknown[] {
  if (!obj) return [];
  const schema = jsonSchema(obj, 'input', components) as { properties?: Record<string, { description?: string }>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (schema.required ?? []).includes(name),
    ...(s.description ? { description: s.description } : {}),
    schema: s,
  }));
}

let cached: Record<string, unknown> | undefined;

export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const components: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const op: Record<string, unknown> = {
      operationId: `${r.method}${r.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(\w)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      ...(r.auth === false ? { security: [] } : {}),
    };
    const params = [
      ...parameters('path', r.params, components),
      ...parameters('query', r.query, components),
      ...(r.headers ?? []).map((h) => ({ name: h.name, in: 'header', required: h.required ?? false, description: h.description, schema: { type: 'string' } })),
    ];
    if (params.length) op.parameters = params;
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(r.body, 'input', components) } } };
    op.responses = Object.fromEntries(
      Object.entries(r.responses).map(([status, d]) => {
        const content = d.schema
          ? { [d.contentType ?? 'application/json']: { schema: jsonSchema(d.schema, 'output', components) } }
          : d.contentType
            ? { [d.contentType]: { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } }
            : undefined;
        return [status, { description: d.description || HTTP_REASON[Number(status)] || '', ...(content ? { content } : {}) }];
      }),
    );
    (paths[r.path] ??= {})[r.method] = op;
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'a2a-planner API',
      version: '1',
      description: 'planner serve: plans, delegated tasks, the inbox, artifacts and schedules, read from and written to Temporal. See docs/api.md.',
    },
    servers: [{ url: 'http://127.0.0.1:8080' }],
    security: [{ bearer: [] }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'One of the tokens in PLANNER_API_TOKEN.' } },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
  return cached;
}

if (require.main === module) {
  process.stdout.write(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
}
