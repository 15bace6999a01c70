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
export function jsonSize(v: unknown): number {
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

export const fieldTooLarge = (field: string, size: number, limit: number) =>
  new HttpError(413, 'field_too_large', `${field} is ${size} bytes; the limit is ${limit} bytes per input/output/metadata field`, {
    field,
    size_bytes: size,
    limit_bytes: limit,
  });

/**
 * OTLP content is truncated rather than refused (exporters cannot fix a payload): the same shape
 * the SDK's framework integrations use for oversized input/output.
 */
export function truncateJson(value: unknown, maxBytes: number): unknown {
  if (value === undefined) return undefined;
  const s = JSON.stringify(value);
  if (s === undefined) return undefined;
  if (s.length * 3 <= maxBytes) return value; // cannot exceed: at most 3 UTF-8 bytes per UTF-16 unit
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes <= maxBytes) return value;
  return { __truncated: true, preview: s.slice(0, Math.min(PREVIEW_CHARS, Math.floor(maxBytes / 4))), originalBytes: bytes };
}
