import { z } from 'zod';
import { uuidSchema } from '../http/ids';
import { hasUnstorableText } from '../http/text';
import { boolQuery, timestamp } from '../http/schemas';
import { timeRangeQuery } from '../traces/schemas';
import { savedFilterIdParam } from '../saved-filters/schemas';

/** A session id as the proxy and ingest store it: text that PostgreSQL can compare (no NUL). */
export const sessionParams = z.object({
  id: z
    .string()
    .min(1)
    .max(256)
    .refine((s) => !hasUnstorableText(s)),
});

export const sessionListQuery = z.object({ ...timeRangeQuery, ...savedFilterIdParam });
/** One session: `include_bodies` adds each trace's input and output (the conversation itself). */
export const sessionReadQuery = z.object({ project_id: uuidSchema.optional(), include_bodies: boolQuery.optional() });
export type SessionFilters = z.output<typeof sessionListQuery>;

const count = z.number().int();
const usd = z.number().nullable();

export const sessionSummarySchema = z
  .object({
    id: z.string(),
    project_id: z.uuid().nullable().describe('null when the session id occurs in several projects (see project_ids)'),
    project_ids: z.array(z.uuid()).optional(),
    user_id: z.string().nullable(),
    trace_count: count,
    request_count: count,
    first_seen_at: timestamp.nullable(),
    last_seen_at: timestamp.nullable(),
    duration_ms: z.number().nullable().describe('first activity to last'),
    trace_duration_ms: z.number().nullable().describe("sum of the traces' own durations"),
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: count,
    cost_usd: usd,
    breakdown: z.object({
      requests: z.object({ total_tokens: count, cost_usd: usd, latency_ms: count }),
      spans: z.object({ total_tokens: count, cost_usd: usd }),
    }),
  })
  .meta({ id: 'SessionSummary' });

export const sessionDetailSchema = sessionSummarySchema
  .extend({
    traces: z.array(
      z.object({
        id: z.string(),
        project_id: z.uuid(),
        name: z.string().nullable(),
        status: z.string(),
        user_id: z.string().nullable(),
        start_time: z.string(),
        end_time: z.string().nullable(),
        duration_ms: z.number().nullable(),
        span_count: count,
        total_tokens: count,
        cost_usd: usd,
        input: z.unknown().optional().describe('with include_bodies=true'),
        output: z.unknown().optional().describe('with include_bodies=true'),
      }),
    ),
    requests: z.array(
      z.object({
        id: z.uuid(),
        project_id: z.uuid(),
        provider: z.string(),
        model: z.string(),
        prompt_tokens: count,
        completion_tokens: count,
        total_tokens: count,
        cost_usd: usd,
        latency_ms: count,
        status_code: count,
        trace_id: z.string().nullable(),
        span_id: z.string().nullable(),
        user_id: z.string().nullable(),
        created_at: timestamp,
      }),
    ),
  })
  .meta({ id: 'Session' });
