import { z } from 'zod';
import { uuidSchema } from '../http/ids';
import { savedFilterIdParam } from '../saved-filters/schemas';
import { scoreSchema } from '../scores/schemas';
import { clientId } from '../ingest/schemas';
import { cursorQuery, limitQuery } from '../http/pagination';
import { isoDateTime } from '../http/schemas';

export const traceParams = z.object({ id: clientId });

/** Filters shared by the trace and session lists. */
export const timeRangeQuery = {
  project_id: uuidSchema.optional(),
  from: isoDateTime.optional(),
  to: isoDateTime.optional(),
  user_id: z.string().min(1).max(256).optional(),
  limit: limitQuery(50, 200),
  cursor: cursorQuery.optional(),
};

export const traceListQuery = z.object({
  ...timeRangeQuery,
  ...savedFilterIdParam,
  status: z.enum(['running', 'completed', 'error']).optional(),
  name: z.string().min(1).max(512).optional(),
  session_id: z.string().min(1).max(256).optional(),
  min_duration_ms: z.coerce.number().min(0).optional(),
});
export type TraceFilters = z.output<typeof traceListQuery>;

/** Timestamps here are PostgreSQL's microsecond-exact ISO text. */
const isoText = z.string().meta({ format: 'date-time', example: '2026-01-31T12:00:00.123456Z' });
const count = z.number().int();
const metadata = z.record(z.string(), z.unknown());

export const traceSummarySchema = z
  .object({
    id: z.string(),
    project_id: z.uuid(),
    name: z.string().nullable(),
    status: z.enum(['running', 'completed', 'error']),
    session_id: z.string().nullable(),
    user_id: z.string().nullable(),
    start_time: isoText,
    end_time: isoText.nullable(),
    duration_ms: z.number().nullable(),
    span_count: count,
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: count,
    cost_usd: z.number().nullable(),
    metadata,
    source: z.string(),
    pending_create: z.boolean().describe('true while only updates or spans of this trace arrived, not its create'),
    created_at: isoText,
    updated_at: isoText,
  })
  .meta({ id: 'TraceSummary' });

const tokens = count.nullable();
const spanSchema = z
  .object({
    id: z.string(),
    trace_id: z.string(),
    parent_span_id: z.string().nullable(),
    name: z.string().nullable(),
    span_type: z.string(),
    status: z.string().nullable(),
    model: z.string().nullable(),
    prompt_tokens: tokens,
    completion_tokens: tokens,
    total_tokens: tokens,
    promptTokens: tokens.describe("the spec's spelling of prompt_tokens"),
    completionTokens: tokens,
    totalTokens: tokens,
    cost_usd: z.number().nullable(),
    input: z.unknown(),
    output: z.unknown(),
    metadata,
    start_time: isoText.nullable(),
    end_time: isoText.nullable(),
    duration_ms: z.number().nullable(),
    pending_create: z.boolean(),
  })
  .meta({ id: 'Span' });

export const spanNodeSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    span_type: z.string(),
    status: z.string().nullable(),
    start_time: isoText.nullable(),
    duration_ms: z.number().nullable(),
    get children(): z.ZodArray<typeof spanNodeSchema> {
      return z.array(spanNodeSchema);
    },
  })
  .meta({ id: 'SpanNode' });

export const traceDetailSchema = traceSummarySchema
  .extend({
    input: z.unknown(),
    output: z.unknown(),
    spans: z.array(spanSchema),
    spans_truncated: z.boolean(),
    tree: z.array(spanNodeSchema).describe('the spans nested under their parents'),
    scores: z.array(scoreSchema).describe('scores of the trace and of its spans (docs/scores.md)'),
  })
  .meta({ id: 'Trace' });
