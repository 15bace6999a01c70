import { z } from 'zod';

/**
 * Input schemas the route layer checks fully before any SQL runs carry this spec-extension key in
 * their metadata (kept by clones, `.describe()` included; shown in the OpenAPI document), so a test
 * can find every id or time field of every route contract that lacks one
 * (test/unit/http/route-inputs.test.ts).
 */
export const INPUT_CHECK = 'x-checked';
export type InputCheck = 'uuid' | 'uuid-list' | 'date-time';
/** The check a schema layer is marked with, if any (wrappers such as `.optional()` are not). */
export const inputCheckOf = (s: z.ZodType): InputCheck | undefined =>
  z.globalRegistry.get(s)?.[INPUT_CHECK] as InputCheck | undefined;

/**
 * Schemas shared by every feature's contracts. Text is checked once here: PostgreSQL cannot store
 * NUL (0x00) in text nor a lone UTF-16 surrogate in jsonb, so API input holding either is refused
 * with 400 `invalid_text` by the route layer (src/http/text.ts) before any schema runs.
 */

/** A display name: trimmed, 1..200 characters. */
export const nameSchema = z.string().trim().min(1, 'must not be empty').max(200);

/**
 * An ISO 8601 timestamp with offset, in the range PostgreSQL and JavaScript both represent
 * (years 0001..9999), so `0000-01-01` or `-200000-…` is a 400 rather than a database error.
 */
export const isoDateTime = z.iso
  .datetime({ offset: true })
  .refine((s) => {
    const t = Date.parse(s);
    if (Number.isNaN(t)) return false;
    const year = new Date(t).getUTCFullYear();
    return year >= 1 && year <= 9999;
  }, 'must be a date between years 0001 and 9999')
  .meta({ example: '2026-01-31T12:00:00Z', [INPUT_CHECK]: 'date-time' });

/** `true` / `false` in a query string. */
export const boolQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

/** `{ id, deleted: true }`: the answer of every DELETE. */
export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) });

/** A timestamp as it appears in JSON responses. */
export const timestamp = z.string().meta({ format: 'date-time', example: '2026-01-31T12:00:00.000Z' });

/**
 * A secret the caller hands over (a provider key, an invitation token): `format: password` and
 * `writeOnly` in the document, so clients mask it and the fuzz run fills it with secret-shaped
 * values and fails on any response that contains one (test/fuzz/st_hooks.py).
 */
export const secretInput = (max: number) =>
  z.string().trim().min(1).max(max).meta({ format: 'password', writeOnly: true });
