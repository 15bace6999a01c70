import { z } from 'zod';
import { cursorQuery, limitQuery } from '../http/pagination';
import { uuidParams, uuidSchema } from '../http/ids';
import { boolQuery, isoDateTime, timestamp } from '../http/schemas';

export const requestParams = uuidParams('id');
/** The single read has no filters; `project_id` still narrows the scope. */
export const readRequestQuery = z.object({ project_id: z.string().optional() });

export const listRequestsQuery = z
  .object({
    project_id: z.string().optional(),
    from: isoDateTime.optional(),
    to: isoDateTime.optional(),
    provider: z.string().max(50).optional(),
    model: z.string().max(500).optional(),
    /** An exact status (200) or a class (2xx, 4xx, 5xx). */
    status: z
      .string()
      .regex(/^([1-5]\d\d|[1-5]xx)$/, 'an HTTP status like 200 or a class like 4xx')
      .optional(),
    user_id: z.string().max(256).optional(),
    session_id: z.string().max(256).optional(),
    trace_id: z.string().max(128).optional(),
    prompt_version_id: uuidSchema.optional(),
    cache_hit: boolQuery.optional(),
    include_bodies: boolQuery.optional(),
    limit: limitQuery(50, 200),
    cursor: cursorQuery.optional(),
  })
  .strict();
export type RequestFilters = z.output<typeof listRequestsQuery>;

const nullableText = z.string().nullable();

/** One row of the request log (bodies only on the single read or with include_bodies=true). */
export const requestRecordSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    api_key_id: z.uuid().nullable(),
    provider: z.string(),
    model: z.string(),
    method: z.string(),
    path: z.string(),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
    cache_read_tokens: z.number().int(),
    cache_write_tokens: z.number().int(),
    cost_usd: z.number().nullable(),
    latency_ms: z.number().int(),
    ttfb_ms: z.number().int().nullable(),
    status_code: z.number().int(),
    trace_id: nullableText,
    span_id: nullableText,
    user_id: nullableText,
    session_id: nullableText,
    log_mode: z.enum(['full', 'meta', 'none']),
    cache_hit: z.boolean(),
    streamed: z.boolean(),
    tokens_estimated: z.boolean(),
    self_hosted: z.boolean(),
    prompt_version_id: z.uuid().nullable(),
    error: nullableText,
    created_at: timestamp,
    request_body: z.string().optional(),
    response_body: z.string().optional(),
  })
  .meta({ id: 'RequestRecord' });
