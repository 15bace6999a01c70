import { z } from 'zod';
import { scoreSchema } from '../scores/schemas';
import { cursorQuery, limitQuery } from '../http/pagination';
import { uuidParams, uuidSchema } from '../http/ids';
import { boolQuery, timestamp } from '../http/schemas';
import { requestFilterShape } from '../filters/request-filter';
import { savedFilterIdParam } from '../saved-filters/schemas';

export const requestParams = uuidParams('id');
/** The single read has no filters; `project_id` still narrows the scope. */
export const readRequestQuery = z.object({ project_id: uuidSchema.optional() });

/** The one filter language of the request log (src/filters/request-filter.ts), plus paging. */
export const listRequestsQuery = z
  .object({
    ...requestFilterShape,
    ...savedFilterIdParam,
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
    properties: z.record(z.string(), z.string()).nullable().describe('custom properties (x-service-property-<name>)'),
    cost_saved_usd: z.number().nullable().describe('a cache hit: what the call would have cost upstream'),
    request_body: z.string().optional(),
    response_body: z.string().optional(),
  })
  .meta({ id: 'RequestRecord' });

/** One request as GET /requests/:id answers it: the record with its scores. */
export const requestDetailSchema = requestRecordSchema
  .extend({ scores: z.array(scoreSchema).describe('scores of this request (docs/scores.md)') })
  .meta({ id: 'RequestDetail' });
