import { z } from 'zod';
import { HttpError, validationError } from '../http/errors';
import { assertFieldSizes, MAX_LABEL, MAX_SPAN_NAME, MAX_TRACE_NAME } from './limits';
import { storableBody } from './storable';
import { SPAN_STATUSES, SPAN_TYPES, TRACE_STATUSES, type IngestOp, type SpanFields, type TraceFields } from './types';

/**
 * The ingest wire format (docs/ingest.md). One schema per payload, used for validation and docs.
 * Lenient where leniency loses nothing: unknown keys are ignored, `null` means "not sent", and the
 * camelCase token names promptTokens / completionTokens / totalTokens are accepted as aliases.
 */

export const clientId = z
  .string()
  .regex(/^[\x21-\x7E]{1,128}$/, 'must be 1 to 128 visible ASCII characters (no spaces)');

const isoTime = z.iso.datetime({ offset: true }).refine((v) => !v.startsWith('0000'), 'year must be 0001 or later');

/** Optional: absent or null both mean "not sent". */
const opt = <T extends z.ZodType>(s: T) =>
  s.nullish().transform((v) => (v === null ? undefined : v) as z.output<T> | undefined);
const label = z.string().min(1).max(MAX_LABEL);
const tokens = z.number().int().min(0).max(2_147_483_647);
const metadata = z.record(z.string(), z.unknown());
const anyJson = z
  .unknown()
  .optional()
  .transform((v) => (v === null ? undefined : v));

/** The spec's word for success is `completed`; on a span it is accepted for `ok` and stored as `ok`. */
const spanStatus = z.enum([...SPAN_STATUSES, 'completed']).transform((s) => (s === 'completed' ? 'ok' : s));

const endAfterStart = (v: { start_time?: string; end_time?: string }) =>
  !v.start_time || !v.end_time || Date.parse(v.end_time) >= Date.parse(v.start_time);
const endAfterStartIssue = { message: 'end_time must not be before start_time', path: ['end_time'] };

export const traceCreateSchema = z
  .object({
    id: clientId,
    name: z.string().min(1).max(MAX_TRACE_NAME),
    session_id: opt(label),
    user_id: opt(label),
    metadata: opt(metadata),
    input: anyJson,
    output: anyJson,
    start_time: isoTime,
    end_time: opt(isoTime),
    status: opt(z.enum(TRACE_STATUSES)),
  })
  .refine(endAfterStart, endAfterStartIssue);

export const traceUpdateSchema = z.object({
  id: opt(clientId),
  name: opt(z.string().min(1).max(MAX_TRACE_NAME)),
  session_id: opt(label),
  user_id: opt(label),
  metadata: opt(metadata),
  input: anyJson,
  output: anyJson,
  end_time: opt(isoTime),
  status: opt(z.enum(['completed', 'error'])),
});

const spanBase = {
  parent_span_id: opt(clientId),
  input: anyJson,
  output: anyJson,
  status: opt(spanStatus),
  model: opt(label),
  prompt_tokens: opt(tokens),
  completion_tokens: opt(tokens),
  total_tokens: opt(tokens),
  end_time: opt(isoTime),
  metadata: opt(metadata),
};

export const spanCreateSchema = z
  .object({
    id: clientId,
    trace_id: clientId,
    name: z.string().min(1).max(MAX_SPAN_NAME),
    span_type: z
      .enum(SPAN_TYPES)
      .nullish()
      .transform((v) => v ?? 'other'),
    start_time: isoTime,
    ...spanBase,
  })
  .refine(endAfterStart, endAfterStartIssue);

export const spanUpdateSchema = z
  .object({
    id: opt(clientId),
    trace_id: opt(clientId),
    name: opt(z.string().min(1).max(MAX_SPAN_NAME)),
    span_type: opt(z.enum(SPAN_TYPES)),
    start_time: opt(isoTime),
    ...spanBase,
  })
  .refine(endAfterStart, endAfterStartIssue);

export const BATCH_OPS = ['trace.create', 'trace.update', 'span.create', 'span.update'] as const;

export const batchItemSchema = z.object({
  op: z.enum(BATCH_OPS),
  id: clientId,
  body: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((v) => v ?? {}),
});

export const batchEnvelopeSchema = (maxOps: number) =>
  z.object({
    operations: z
      .array(z.unknown())
      .min(1, 'must hold at least one operation')
      .max(maxOps, `holds more than ${maxOps} operations`),
  });

const TOKEN_ALIASES: [string, string][] = [
  ['promptTokens', 'prompt_tokens'],
  ['completionTokens', 'completion_tokens'],
  ['totalTokens', 'total_tokens'],
];

/** camelCase token aliases → snake_case (the snake_case name wins when both are sent). */
function withAliases(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const b = body as Record<string, unknown>;
  if (!TOKEN_ALIASES.some(([camel]) => camel in b)) return body;
  const out = { ...b };
  for (const [camel, snake] of TOKEN_ALIASES) {
    if (camel in out) {
      if (out[snake] === undefined || out[snake] === null) out[snake] = out[camel];
      delete out[camel];
    }
  }
  return out;
}

const compact = <T extends Record<string, unknown>>(o: T): T => {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
};

function deriveTotal(f: SpanFields) {
  if (f.total_tokens === undefined && (f.prompt_tokens !== undefined || f.completion_tokens !== undefined)) {
    f.total_tokens = Math.min((f.prompt_tokens ?? 0) + (f.completion_tokens ?? 0), 2_147_483_647);
  }
}

/** A 400 in the same shape as zod failures (validationError). */
export function invalid(where: string, path: string, message: string): HttpError {
  const field = path ? `${where}.${path}` : where;
  return new HttpError(400, 'validation_error', `Invalid ${field}: ${message}`, { issues: [{ path, message }] });
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(r.error, where);
  return r.data;
}

/**
 * Validates one operation and turns it into the writer's form. `pathId` is the id from the URL or
 * the batch item; a body id, when sent, must match it. Throws HttpError (400 / 413).
 */
export function toOp(
  kind: IngestOp['op'],
  body: unknown,
  pathId: string | undefined,
  maxFieldBytes: number,
  where = 'body',
): IngestOp {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid(where, '', 'must be a JSON object');
  }
  const stored = storableBody(body as Record<string, unknown>, where);
  const b = withAliases(
    pathId !== undefined && stored.id === undefined && kind.endsWith('create') ? { ...stored, id: pathId } : stored,
  );
  const bodyId = (b as { id?: unknown }).id;
  if (pathId !== undefined && bodyId !== undefined && bodyId !== null && bodyId !== pathId) {
    throw invalid(where, 'id', `does not match the id ${JSON.stringify(pathId)} it is sent for`);
  }
  switch (kind) {
    case 'trace.create': {
      const { id, ...fields } = parseWith(traceCreateSchema, b, where);
      assertFieldSizes(fields, maxFieldBytes, where);
      return { op: kind, id, fields: compact(fields) as TraceFields & { name: string; start_time: string } };
    }
    case 'trace.update': {
      const { id: _id, ...fields } = parseWith(traceUpdateSchema, b, where);
      assertFieldSizes(fields, maxFieldBytes, where);
      return { op: kind, id: pathId!, fields: compact(fields) };
    }
    case 'span.create': {
      const { id, ...fields } = parseWith(spanCreateSchema, b, where);
      assertFieldSizes(fields, maxFieldBytes, where);
      deriveTotal(fields);
      return { op: kind, id, fields: compact(fields) as never };
    }
    case 'span.update': {
      const { id: _id, ...fields } = parseWith(spanUpdateSchema, b, where);
      assertFieldSizes(fields, maxFieldBytes, where);
      deriveTotal(fields);
      return { op: kind, id: pathId!, fields: compact(fields) };
    }
  }
}

/** The answer to one stored operation. */
export const ingestAckSchema = z
  .object({
    id: z.string(),
    object: z.enum(['trace', 'span']),
    trace_id: z.string().optional().describe('span creates: the trace the span belongs to'),
    created: z.boolean().optional().describe('creates: false when the create was a replay (nothing changed)'),
    pending_create: z.boolean().optional().describe("updates: true while the object's create has not arrived"),
  })
  .meta({ id: 'IngestAck' });

/** One result per batch operation, in order: an ack, or the error of that operation alone. */
export const batchResultSchema = z
  .object({
    results: z.array(
      ingestAckSchema.partial().extend({
        index: z.number().int(),
        id: z.string().nullable(),
        status: z.number().int(),
        op: z.enum(BATCH_OPS).optional(),
        code: z.string().optional(),
        error: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'IngestBatchResult' });
