import type { ZodError } from 'zod';

/**
 * An error that maps to an HTTP response with the service's envelope:
 * `{ success: false, error, code, ...details }`.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code = 'bad_request', details?: Record<string, unknown>) =>
  new HttpError(400, code, message, details);
export const unauthorized = (message = 'Authentication required', code = 'unauthorized') =>
  new HttpError(401, code, message);
export const forbidden = (message = 'You do not have permission to do this', code = 'forbidden') =>
  new HttpError(403, code, message);
export const notFound = (what = 'Resource', code = 'not_found') => new HttpError(404, code, `${what} not found`);
export const conflict = (message: string, code = 'conflict', details?: Record<string, unknown>) =>
  new HttpError(409, code, message, details);

/** Turns a zod failure into a 400 whose message names the first bad field. */
export function validationError(err: ZodError, where: string): HttpError {
  const issues = err.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  const first = issues[0];
  const field = first?.path ? `${where}.${first.path}` : where;
  return new HttpError(400, 'validation_error', `Invalid ${field}: ${first?.message ?? 'invalid value'}`, { issues });
}

export function errorBody(err: HttpError) {
  return { success: false as const, error: err.message, code: err.code, ...err.details };
}
