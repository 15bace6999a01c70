import { z } from 'zod';
import { HttpError } from '../http/errors';

/** timestamptz as ISO 8601 UTC text with microseconds (JavaScript Dates would drop them). */
export const isoSql = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export const isoQuery = z.iso.datetime({ offset: true });

export const limitQuery = (def: number, max: number) => z.coerce.number().int().min(1).max(max).default(def);

/** Opaque keyset cursor: the sort key of the last row of the previous page. */
export function encodeCursor(parts: (string | number)[]): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

export function decodeCursor(raw: string, arity: number): string[] {
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === arity && v.every((x) => typeof x === 'string')) return v as string[];
  } catch {
    // fall through
  }
  throw new HttpError(400, 'invalid_cursor', 'cursor is not a cursor returned by this endpoint');
}

export const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
