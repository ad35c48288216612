/**
 * Turns zod issues into one readable line that names the offending field, e.g.
 * `task.status.state: invalid enum value 'TASK_STATE_BOGUS'`.
 *
 * zod reports a failed oneof (z.xor) as a single "Invalid input" with one issue list per
 * branch. For a frame like `{"task": {...bad...}}` the useful branch is the one whose member
 * is present, so we drop branches that failed only because their member key is absent and
 * report the survivor's issues instead.
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

const at = (keys: PathKey[], detail: string): SchemaProblem => ({ path: formatPath(keys), keys, detail });

export interface SchemaProblem {
  /** Dotted path, `a.b[0].c`; empty for the root. */
  path: string;
  keys: PropertyKey[];
  detail: string;
}

export function formatPath(path: readonly PathKey[]): string {
  let out = '';
  for (const k of path) {
    if (typeof k === 'number') out += `[${k}]`;
    else out += out === '' ? String(k) : `.${String(k)}`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PathKey[]): unknown {
  let cur: unknown = root;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

function describeValue(v: unknown): string {
  if (typeof v === 'string') return `'${v.length > 60 ? `${v.slice(0, 60)}…` : v}'`;
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Picks the most specific problem from a list of issues (the first, after unwrapping oneofs). */
export function explainIssues(issues: readonly Issue[], root: unknown, base: readonly PathKey[] = []): SchemaProblem {
  const issue = issues[0];
  if (!issue) return at([...base], 'invalid value');
  const path = [...base, ...issue.path];
  const value = valueAt(root, path);
  switch (issue.code) {
    case 'invalid_union': {
      if (issue.errors.length === 0) return at(path, issue.message);
      const present = issue.errors.filter(
        (branch) => !branch.some((i) => i.path.length === 1 && valueAt(root, [...path, ...i.path]) === undefined),
      );
      const first = present[0];
      if (first) return explainIssues(first, root, path);
      return at(path, issue.message);
    }
    case 'invalid_type':
      if (value === undefined) return at(path, 'missing required field');
      return at(path, `expected ${issue.expected}, got ${typeName(value)}`);
    case 'invalid_value':
      if (issue.values.length > 1) {
        return at(path, `invalid enum value ${describeValue(value)}`);
      }
      return at(path, `expected ${describeValue(issue.values[0])}, got ${describeValue(value)}`);
    case 'too_small':
      if (issue.origin === 'array') return at(path, `must have at least ${String(issue.minimum)} element(s)`);
      if (issue.origin === 'string') return at(path, 'must not be empty');
      return at(path, `must be >= ${String(issue.minimum)}`);
    case 'too_big':
      if (issue.origin === 'string') return at(path, `longer than the bound of ${String(issue.maximum)} characters (${typeof value === 'string' ? value.length : '?'})`);
      return at(path, issue.message);
    default:
      return at(path, issue.message);
  }
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; problem: SchemaProblem };

/** safeParse plus a readable explanation; never throws. */
export function parseWith<S extends z.ZodType>(schema: S, data: unknown): ParseResult<z.output<S>> {
  const r = schema.safeParse(data);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, problem: explainIssues(r.error.issues, data) };
}

/** `response field task.status.state: invalid enum value 'X'`, or `response: …` at the root. */
export function describeProblem(p: SchemaProblem, what: string): string {
  return p.path === '' ? `${what}: ${p.detail}` : `${what} field ${p.path}: ${p.detail}`;
}

/** Every problem as "path: detail; ...", for input where the caller wants them all at once. */
export function describeIssues(error: z.ZodError, data: unknown): string {
  return error.issues
    .map((issue) => {
      const p = explainIssues([issue], data);
      return `${p.path || '(root)'}: ${p.detail}`;
    })
    .join('; ');
}
