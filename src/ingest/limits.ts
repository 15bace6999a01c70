import type { Config } from '../config';
import { HttpError } from '../http/errors';

export interface IngestLimits {
  maxRequestBytes: number;
  maxFieldBytes: number;
  maxBatchOps: number;
  maxOtlpBytes: number;
}

export const limitsFrom = (c: Config): IngestLimits => ({
  maxRequestBytes: c.INGEST_MAX_REQUEST_BYTES,
  maxFieldBytes: c.INGEST_MAX_FIELD_BYTES,
  maxBatchOps: c.INGEST_MAX_BATCH_OPS,
  maxOtlpBytes: c.OTLP_MAX_REQUEST_BYTES,
});

/** Stored names are capped: trace names are indexed (btree entries must stay small). */
export const MAX_TRACE_NAME = 512;
export const MAX_SPAN_NAME = 2048;
export const MAX_LABEL = 256;

const PREVIEW_CHARS = 16_384;

/** Size of a JSON value in UTF-8 bytes, or -1 when it is not serializable. */
function jsonSize(v: unknown): number {
  if (v === undefined) return 0;
  return Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');
}

/** SDK/JSON ingest refuses an oversized field and says which (413). */
export function assertFieldSizes(fields: Record<string, unknown>, maxBytes: number, where = 'body') {
  for (const name of ['input', 'output', 'metadata'] as const) {
    const v = fields[name];
    if (v === undefined) continue;
    const size = jsonSize(v);
    if (size > maxBytes) throw fieldTooLarge(`${where}.${name}`, size, maxBytes);
  }
}

const fieldTooLarge = (field: string, size: number, limit: number) =>
  new HttpError(
    413,
    'field_too_large',
    `${field} is ${size} bytes; the limit is ${limit} bytes per input/output/metadata field`,
    {
      field,
      size_bytes: size,
      limit_bytes: limit,
    },
  );

/**
 * An upper bound of a value's JSON size in UTF-8 bytes, without building the JSON (a walk with no
 * allocation is several times cheaper than JSON.stringify). Stops early once above `cap`.
 */
function jsonBytesUpperBound(v: unknown, cap: number): number {
  return boundOf(v, cap, 0);
}

function boundOf(x: unknown, cap: number, depth: number): number {
  if (typeof x === 'string') return x.length * 6 + 2; // worst case: every unit escaped as \uXXXX
  if (typeof x === 'number') return 24;
  if (typeof x === 'boolean' || x === null || x === undefined) return 5;
  if (typeof x !== 'object' || depth > 64) return cap + 1; // let the exact path decide
  let total = 2;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length && total <= cap; i++) total += 1 + boundOf(x[i], cap, depth + 1);
  } else {
    for (const k in x) {
      total += k.length * 6 + 4 + boundOf((x as Record<string, unknown>)[k], cap, depth + 1);
      if (total > cap) break;
    }
  }
  return total;
}

/**
 * OTLP content is truncated rather than refused (exporters cannot fix a payload): the same shape
 * the SDK's framework integrations use for oversized input/output.
 */
export function truncateJson(value: unknown, maxBytes: number): unknown {
  if (value === undefined) return undefined;
  if (jsonBytesUpperBound(value, maxBytes) <= maxBytes) return value;
  const s = JSON.stringify(value);
  if (s === undefined) return undefined;
  if (s.length * 3 <= maxBytes) return value; // cannot exceed: at most 3 UTF-8 bytes per UTF-16 unit
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes <= maxBytes) return value;
  return {
    __truncated: true,
    preview: s.slice(0, Math.min(PREVIEW_CHARS, Math.floor(maxBytes / 4))),
    originalBytes: bytes,
  };
}
