import { z } from 'zod';
import { uuidSchema } from '../http/ids';
import { savedFilterIdParam } from '../saved-filters/schemas';
import { GRANULARITIES } from '../analytics/buckets';
import { USER_SORTS } from '../analytics/end-users';
import { cursorQuery, limitQuery } from '../http/pagination';
import { isoDateTime, timestamp } from '../http/schemas';
import { statsAnswerSchema } from '../stats/schemas';

export const userListQuery = z
  .object({
    project_id: uuidSchema.optional(),
    ...savedFilterIdParam,
    search: z.string().trim().min(1).max(256).optional().describe('part of the end-user id, case-insensitive'),
    sort: z.enum(USER_SORTS).default('cost_usd'),
    order: z.enum(['asc', 'desc']).default('desc'),
    limit: limitQuery(50, 200),
    cursor: cursorQuery.optional(),
  })
  .strict();
export type UserListParams = z.output<typeof userListQuery>;

export const userParams = z.object({ id: z.string().min(1).max(256) });
export const userDetailQuery = z
  .object({
    project_id: uuidSchema.optional(),
    from: isoDateTime.optional().describe('series start (default: 30 days before `to`)'),
    to: isoDateTime.optional().describe('series end (default: the end of the current hour)'),
    granularity: z.enum(GRANULARITIES).default('auto'),
    tz: z.string().min(1).max(64).default('UTC'),
  })
  .strict();

const int = z.number().int();
export const endUserSchema = z
  .object({
    project_id: z.uuid(),
    user_id: z.string(),
    first_seen: timestamp,
    last_seen: timestamp,
    requests: int,
    errors: int,
    error_rate: z.number(),
    prompt_tokens: int,
    completion_tokens: int,
    total_tokens: int,
    cost_usd: z.number(),
    traces: int,
    sessions: int,
    top_models: z
      .array(z.object({ model: z.string(), requests: int, cost_usd: z.number() }))
      .describe('the most used of the latest 500 calls, at most 3'),
    rate_limit: z
      .object({
        window_start: timestamp,
        window_seconds: int,
        requests: int,
        tokens: int,
        requests_limit: int.nullable(),
        tokens_limit: int.nullable(),
      })
      .nullable()
      .describe("the current window of the project's end-user rate limit; null without one"),
  })
  .meta({ id: 'EndUser' });

export const endUserDetailSchema = endUserSchema
  .extend({
    stats: statsAnswerSchema,
    latest_requests: z.array(
      z.object({
        id: z.uuid(),
        provider: z.string(),
        model: z.string(),
        status_code: int,
        total_tokens: int,
        cost_usd: z.number().nullable(),
        latency_ms: int,
        session_id: z.string().nullable(),
        created_at: timestamp,
      }),
    ),
    latest_sessions: z
      .array(
        z.object({
          session_id: z.string(),
          first_seen: timestamp,
          last_seen: timestamp.nullable(),
          requests: int,
          cost_usd: z.number(),
        }),
      )
      .describe('newest first'),
  })
  .meta({ id: 'EndUserDetail' });
