/**
 * The one conversion layer between database rows and API views (issue 27). Each table has a record
 * type beside its queries; a view is derived from it with these converters, so a column's API form
 * is decided here once. Each helper keeps the exact output of the local helpers it replaced.
 */

/** A timestamp column as ISO text; text (a `to_char` column, a value already converted) passes through `String`. */
export const isoText = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));

/** A nullable timestamp column: null (and a missing column) stays null. */
export const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : isoText(v));

/** Epoch milliseconds as ISO text. */
export const isoMs = (ms: number): string => new Date(ms).toISOString();

/**
 * A timestamp that may already be text: only a Date is converted, anything else is returned as it
 * is (null and undefined included, not `String`-ed), so a missing column stays missing in the view.
 */
export const isoKeep = (v: unknown): string | null | undefined =>
  v instanceof Date ? v.toISOString() : (v as string | null | undefined);

/**
 * A numeric column. The pool parses int8 and numeric as numbers (src/db/knex.ts); this covers
 * aggregates and text that a raw query or a driver without that parser returns. Null stays null.
 */
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A jsonb column: pg parses it; a NULL (or a missing column) becomes the given empty value. */
export const jsonOr = <T>(v: T | null | undefined, empty: T): T => v ?? empty;
