import type { Knex } from 'knex';
import { HttpError } from '../http/errors';
import * as q from './queries';

/**
 * Per-end-user rate limits of the proxy: fixed windows (src/rate-limits/queries.ts has the one
 * window formula), one counter row per (project, user, window), admitted by one atomic upsert.
 *
 * Tokens are known only after the answer, so they are added when the request row is written
 * (same transaction); a token cap therefore admits calls while the window's total so far is under
 * it, and the call that crosses it completes.
 */
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
  const row = await q.findRateLimitConfig(db, projectId);
  return row
    ? {
        requestsPerWindow: row.requests_per_window,
        tokensPerWindow: row.tokens_per_window,
        windowSeconds: row.window_seconds,
      }
    : null;
}

export async function admit(
  db: Knex,
  projectId: string,
  userId: string,
  cfg: RateLimitConfig,
): Promise<RateLimitDecision> {
  const r = await q.admitCall(
    db,
    projectId,
    userId,
    cfg.windowSeconds,
    cfg.requestsPerWindow ?? 2_147_483_647,
    cfg.tokensPerWindow,
  );
  const allowed = r.requests !== null;
  let requests = r.requests ?? 0;
  let tokens = r.tokens ?? 0;
  if (!allowed) {
    const cur = await q.windowCounters(db, projectId, userId, r.window_start);
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
export async function addTokens(
  db: Knex | Knex.Transaction,
  entries: { projectId: string; userId: string; windowStart: Date; tokens: number }[],
): Promise<void> {
  const rows = entries.filter((e) => e.tokens > 0);
  if (!rows.length) return;
  await q.addTokenRows(
    db,
    rows.map((r) => ({
      project_id: r.projectId,
      user_id: r.userId,
      window_start: r.windowStart.toISOString(),
      tokens: r.tokens,
    })),
  );
}

export const sweepCounters = (db: Knex): Promise<number> => q.deleteExpiredCounters(db);
