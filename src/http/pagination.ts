import { z } from 'zod';
import { HttpError } from './errors';
import { isUuid } from './ids';

/**
 * Keyset pagination, one format for every list: the cursor is the sort key of the last row of the
 * previous page, as a base64url JSON array of strings. Each part is checked against its kind before
 * it reaches SQL, so a forged cursor is a 400 `invalid_cursor`, never a database error.
 */
export type CursorPart = 'ts' | 'uuid' | 'text' | 'int';

const invalidCursor = () =>
  new HttpError(400, 'invalid_cursor', 'cursor is not valid: pass next_cursor from the previous page unchanged');

/** The `cursor` query parameter of every list. */
export const cursorQuery = z.string().min(1).max(2000).describe('next_cursor of the previous page, unchanged');

/** `limit` of a list: 1..max, default `def`. */
export const limitQuery = (def: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(def).describe(`page size (1 to ${max})`);

/** PostgreSQL's microsecond-exact ISO text of a timestamptz column (a JS Date keeps milliseconds only). */
export const isoSql = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const INT = /^-?\d{1,18}$/;

function valid(kind: CursorPart, v: unknown): v is string {
  if (typeof v !== 'string') return false;
  switch (kind) {
    case 'ts':
      return TS.test(v) && Number(v.slice(0, 4)) >= 1 && !Number.isNaN(Date.parse(v));
    case 'uuid':
      return isUuid(v);
    case 'int':
      return INT.test(v);
    case 'text':
      return v.length <= 1000 && !/[\u0000\ud800-\udfff]/.test(v);
  }
}

export interface CursorCodec {
  encode(parts: (string | number)[]): string;
  /** The parts, each checked against its kind; 400 `invalid_cursor` otherwise. */
  decode(raw: string): string[];
}

export function cursorCodec(...kinds: CursorPart[]): CursorCodec {
  return {
    encode: (parts) => Buffer.from(JSON.stringify(parts.map(String)), 'utf8').toString('base64url'),
    decode(raw) {
      let v: unknown;
      try {
        v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
      } catch {
        throw invalidCursor();
      }
      if (!Array.isArray(v) || v.length !== kinds.length || !kinds.every((k, i) => valid(k, v[i])))
        throw invalidCursor();
      return v as string[];
    },
  };
}

/**
 * One page from rows fetched with `limit + 1`: the extra row only says that there is a next page.
 * `key` gives the cursor parts of a row; `strip` removes the sort helper columns from the items.
 */
export function pageOf<R, T = R>(
  rows: R[],
  limit: number,
  codec: CursorCodec,
  key: (row: R) => (string | number)[],
  strip: (row: R) => T = (r) => r as unknown as T,
) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { data: page.map(strip), next_cursor: more && last ? codec.encode(key(last)) : null };
}
