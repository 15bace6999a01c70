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

/**
 * SQLSTATE class 22 (data exception) says PostgreSQL refused a value, i.e. bad input a route
 * contract let through. Each is a 400 whose message names the kind of value, never the SQL.
 */
const DATA_EXCEPTIONS: Record<string, string> = {
  '22P02': 'a value is not in the expected format (e.g. an id that is not a UUID)',
  '22007': 'a date or time is not valid',
  '22008': 'a date or time is out of range',
  '22009': 'a date or time has an invalid time zone offset',
  '22003': 'a number is out of range',
  '22001': 'a text is too long',
  '22021': 'a text is not valid UTF-8',
  '22P05': 'a text holds a character that cannot be stored',
};

/**
 * A PostgreSQL data exception (node-postgres sets `code` and `severity`) as a 400 `invalid_input`; anything else:
 * undefined.
 */
export function dataException(err: unknown): HttpError | undefined {
  const e = err as { code?: unknown; severity?: unknown } | null;
  if (typeof e?.code !== 'string' || !/^22[0-9A-Z]{3}$/.test(e.code) || typeof e.severity !== 'string')
    return undefined;
  return new HttpError(
    400,
    'invalid_input',
    `Invalid input: ${DATA_EXCEPTIONS[e.code] ?? 'a value cannot be stored or compared'}`,
  );
}

export function errorBody(err: HttpError) {
  return { success: false as const, error: err.message, code: err.code, ...err.details };
}
