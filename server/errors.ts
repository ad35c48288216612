// The API's one error shape, {error: {code, message, details}}, and the mapping of what the client/
// layer throws onto HTTP statuses. Bad input is always a 4xx naming the field; a 500 means a bug or
// an unreachable Temporal, never something the caller sent.
import type { z } from 'zod';
import { explainIssues } from '../a2a/validate';

export type ErrorCode =
  | 'invalid_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'limit_exceeded'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unavailable'
  | 'timeout'
  | 'internal';

export interface ErrorDetail {
  path: string;
  message: string;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }

  body(): { error: { code: ErrorCode; message: string; details?: ErrorDetail[] } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export const notFound = (message: string): ApiError => new ApiError(404, 'not_found', message);
export const conflict = (message: string): ApiError => new ApiError(409, 'conflict', message);

/**
 * A zod failure on `where` (body, query, path) as a 400: every issue with its path and what is
 * wrong with the value there; the message repeats them on one line.
 */
export function invalid(where: 'body' | 'query' | 'path', error: z.ZodError, data: unknown): ApiError {
  const details = error.issues.map((issue) => {
    const p = explainIssues([issue], data);
    return { path: p.path ? `${where}.${p.path}` : where, message: p.detail };
  });
  const message = `invalid request: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`;
  return new ApiError(400, 'invalid_request', message, details);
}

/** Parses `data` (a body, query or params) or throws the 400 that names each problem. */
export function parseOr400<S extends z.ZodType>(schema: S, where: 'body' | 'query' | 'path', data: unknown): z.output<S> {
  const r = schema.safeParse(data);
  if (!r.success) throw invalid(where, r.error, data);
  return r.data;
}
