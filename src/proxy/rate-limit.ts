import type { Knex } from 'knex';
import { z } from 'zod';
import { HttpError } from '../http/errors';

/**
 * Per-end-user rate limits: fixed windows aligned to the epoch (window_start = floor(now / w) * w
 * on the database clock, so every replica agrees), one counter row per (project, user, window).
 *
 * Admission is one atomic upsert: it inserts the row with 1, or increments it only while both
 * counters are under their caps. PostgreSQL serialises concurrent upserts of one row on its row
 * lock and re-checks the WHERE after the lock, so with a cap of N exactly N concurrent calls pass,
 * across any number of api replicas. Refused calls are not counted.
 *
 * Tokens are known only after the answer, so they are added when the request row is written
 * (same transaction); a token cap therefore admits calls while the window's total so far is under
 * it, and the call that crosses it completes.
 */
export const rateLimitSchema = z
  .object({
    requests_per_window: z.number().int().positive().max(1_000_000_000).nullable().optional(),
    tokens_per_window: z.number().int().positive().max(1e15).nullable().optional(),
    window_seconds: z.number().int().min(1).max(2_592_000),
  })
  .strict()
  .refine((v) => v.requests_per_window != null || v.tokens_per_window != null, {
    message: 'set requests_per_window, tokens_per_window or both',
    path: ['requests_per_window'],
  });
export type RateLimitInput = z.infer<typeof rateLimitSchema>;

export interface RateLimitConfig {
  requestsPerWindow: number | null;
  tokensPerWindow: number | null;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  windowStart: Date;
  headers: Record<string, string>;
}

export async function loadRateLimitConfig(db: Knex, projectId: string): Promise<RateLimitConfig | null> {
  const row = await db('rate_limits').select('requests_per_window', 'tokens_per_window', 'window_seconds').where({ project_id: projectId }).first();
  return row ? { requestsPerWindow: row.requests_per_window, tokensPerWindow: row.tokens_per_window, windowSeconds: row.window_seconds } : null;
}

const BIG = '9223372036854775807';

export async function admit(db: Knex, projectId: string, userId: string, cfg: RateLimitConfig): Promise<RateLimitDecision> {
  const w = cfg.windowSeconds;
  const reqCap = cfg.requestsPerWindow ?? 2_147_483_647;
  const tokCap = cfg.tokensPerWindow != null ? String(cfg.tokensPerWindow) : BIG;
  const { rows } = await db.raw<{ rows: { requests: number | null; tokens: number | null; window_start: Date; reset_s: number }[] }>(
    `with win as (
       select to_timestamp(floor(extract(epoch from now()) / ?) * ?) as start, now() as now
     ), up as (
       insert into rate_limit_counters as c (project_id, user_id, window_start, expires_at, requests, tokens)
       select ?, ?, win.start, win.start + make_interval(secs => ?), 1, 0 from win
       on conflict (project_id, user_id, window_start) do update set requests = c.requests + 1
         where c.requests < ? and c.tokens < ?::bigint
       returning c.requests, c.tokens
     )
     select up.requests, up.tokens, win.start as window_start,
            ceil(extract(epoch from (win.start + make_interval(secs => ?) - win.now)))::int as reset_s
       from win left join up on true`,
    [w, w, projectId, userId, w, reqCap, tokCap, w],
  );
  const r = rows[0]!;
  const allowed = r.requests !== null;
  let requests = r.requests ?? 0;
  let tokens = r.tokens ?? 0;
  if (!allowed) {
    const cur = await db('rate_limit_counters').select('requests', 'tokens').where({ project_id: projectId, user_id: userId, window_start: r.window_start }).first();
    requests = cur?.requests ?? 0;
    tokens = cur?.tokens ?? 0;
  }
  const reset = Math.max(1, r.reset_s);
  const headers: Record<string, string> = {};
  // The request cap is the headline limit; with only a token cap the headers describe tokens.
  if (cfg.requestsPerWindow != null) {
    headers['ratelimit-limit'] = String(cfg.requestsPerWindow);
    headers['ratelimit-remaining'] = String(Math.max(0, cfg.requestsPerWindow - requests));
  } else if (cfg.tokensPerWindow != null) {
    headers['ratelimit-limit'] = String(cfg.tokensPerWindow);
    headers['ratelimit-remaining'] = String(Math.max(0, cfg.tokensPerWindow - tokens));
  }
  headers['ratelimit-reset'] = String(reset);
  headers['ratelimit-policy'] = policyHeader(cfg);
  if (!allowed) headers['retry-after'] = String(reset);
  return { allowed, windowStart: r.window_start, headers };
}

function policyHeader(cfg: RateLimitConfig): string {
  const parts: string[] = [];
  if (cfg.requestsPerWindow != null) parts.push(`${cfg.requestsPerWindow};w=${cfg.windowSeconds}`);
  if (cfg.tokensPerWindow != null) parts.push(`${cfg.tokensPerWindow};w=${cfg.windowSeconds};unit=tokens`);
  return parts.join(', ');
}

export function rateLimited(headers: Record<string, string>, cfg: RateLimitConfig): HttpError {
  return new HttpError(
    429,
    'rate_limited',
    'Rate limit exceeded for this end user; retry after the window resets',
    {
      limit: cfg.requestsPerWindow,
      token_limit: cfg.tokensPerWindow,
      window_seconds: cfg.windowSeconds,
      retry_after_seconds: Number(headers['retry-after']),
    },
    headers,
  );
}

/** Token usage is added to the window the call was admitted in (in the request-log transaction). */
export async function addTokens(db: Knex | Knex.Transaction, entries: { projectId: string; userId: string; windowStart: Date; tokens: number }[]): Promise<void> {
  const rows = entries.filter((e) => e.tokens > 0);
  if (!rows.length) return;
  await db.raw(
    `update rate_limit_counters c set tokens = c.tokens + t.tokens
       from (select project_id, user_id, window_start, sum(tokens)::bigint as tokens
               from json_to_recordset(?::json) as x(project_id uuid, user_id text, window_start timestamptz, tokens bigint)
              group by 1, 2, 3) t
      where c.project_id = t.project_id and c.user_id = t.user_id and c.window_start = t.window_start`,
    [JSON.stringify(rows.map((r) => ({ project_id: r.projectId, user_id: r.userId, window_start: r.windowStart.toISOString(), tokens: r.tokens })))],
  );
}

export async function sweepCounters(db: Knex): Promise<number> {
  const { rowCount } = await db.raw<{ rowCount: number }>(`delete from rate_limit_counters where expires_at < now() - interval '1 minute'`);
  return rowCount ?? 0;
}
