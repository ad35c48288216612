// Checking a request's params once the SDK's codecs have read them: the project's zod schemas
// (a2a/schema.ts) decide, and a refusal is the one error A2A has for it, -32602 / HTTP 400
// "Invalid params: <field>: <why>", so the caller learns which field to fix. The handler,
// ListTasks and the push configs all refuse params through here.
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { z } from 'zod';
import { explainIssues } from '../../a2a/validate';
import { configIdProblem } from '../../workflows/plan/messages';

/** -32602 / HTTP 400 saying what is wrong with the params (`detail` names the field first). */
export function invalidParams(detail: string): RequestMalformedError {
  return new RequestMalformedError({ message: `Invalid params: ${detail}` });
}

/** The params as the schema reads them, or -32602 naming each field at fault under `prefix`. */
export function parseParams<S extends z.ZodType>(schema: S, data: unknown, prefix = ''): z.output<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const parts = r.error.issues.map((issue) => {
    const p = explainIssues([issue], data);
    return `${[prefix, p.path].filter(Boolean).join('.') || '(params)'}: ${p.detail}`;
  });
  throw invalidParams(parts.join('; '));
}

export const IdSchema = z.string().min(1, 'a task id is required');
/** A push config's id, the caller's own or the planner's (workflows/plan/messages.ts configIdProblem: it names the config in REST paths and delivery keys). */
export const ConfigIdSchema = z.string().refine((s) => configIdProblem(s) === undefined, { error: (issue) => configIdProblem(issue.input) });
export const HistoryLengthSchema = z.number().int().min(0).optional();
