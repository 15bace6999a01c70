import type { Knex } from 'knex';

const VIEW = ['project_id', 'requests_per_window', 'tokens_per_window', 'window_seconds', 'created_at', 'updated_at'];

/**
 * The one window formula: fixed windows aligned to the epoch on the database clock, so every
 * replica (and the usage read) agrees on which window a call falls in. `w` is a SQL expression
 * for the window length in seconds.
 */
export const windowStartSql = (w: string) => `to_timestamp(floor(extract(epoch from now()) / ${w}) * ${w})`;

export const listRateLimits = (db: Knex, projectIds: string[]) =>
  db('rate_limits').select(VIEW).whereIn('project_id', projectIds).orderBy('created_at');

export const lockRateLimit = (trx: Knex.Transaction, projectId: string) =>
  trx('rate_limits').select(VIEW).where({ project_id: projectId }).forUpdate().first();

export type RateLimitValues = {
  requests_per_window: number | null;
  tokens_per_window: number | null;
  window_seconds: number;
};

export const upsertRateLimit = async (
  trx: Knex.Transaction,
  orgId: string,
  projectId: string,
  values: RateLimitValues,
) =>
  (
    await trx('rate_limits')
      .insert({ project_id: projectId, org_id: orgId, ...values })
      .onConflict('project_id')
      .merge(values)
      .returning(VIEW)
  )[0];

export const deleteRateLimit = async (trx: Knex.Transaction, projectId: string) =>
  (await trx('rate_limits').where({ project_id: projectId }).del().returning(VIEW))[0];

export const findRateLimitConfig = (db: Knex, projectId: string) =>
  db('rate_limits')
    .select('requests_per_window', 'tokens_per_window', 'window_seconds')
    .where({ project_id: projectId })
    .first();

/** The caps and the end user's counters of the current window; none without a configuration. */
export async function currentUsage(db: Knex, projectId: string, userId: string) {
  const { rows } = await db.raw(
    `select l.requests_per_window, l.tokens_per_window, l.window_seconds,
            ${windowStartSql('l.window_seconds')} as window_start,
            coalesce(c.requests, 0) as requests, coalesce(c.tokens, 0)::bigint as tokens
       from rate_limits l
       left join rate_limit_counters c
         on c.project_id = l.project_id and c.user_id = ?
        and c.window_start = ${windowStartSql('l.window_seconds')}
      where l.project_id = ?`,
    [userId, projectId],
  );
  return rows[0] ?? null;
}

const BIG = '9223372036854775807';

/**
 * Admission is one atomic upsert: it inserts the row with 1, or increments it only while both
 * counters are under their caps. PostgreSQL serialises concurrent upserts of one row on its row
 * lock and re-checks the WHERE after the lock, so with a cap of N exactly N concurrent calls pass,
 * across any number of api replicas. Refused calls are not counted.
 */
export async function admitCall(
  db: Knex,
  projectId: string,
  userId: string,
  w: number,
  reqCap: number,
  tokCap: number | null,
) {
  const { rows } = await db.raw<{
    rows: { requests: number | null; tokens: number | null; window_start: Date; reset_s: number }[];
  }>(
    `with win as (
       select ${windowStartSql('?')} as start, now() as now
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
    [w, w, projectId, userId, w, reqCap, tokCap != null ? String(tokCap) : BIG, w],
  );
  return rows[0]!;
}

export const windowCounters = (db: Knex, projectId: string, userId: string, windowStart: Date) =>
  db('rate_limit_counters')
    .select('requests', 'tokens')
    .where({ project_id: projectId, user_id: userId, window_start: windowStart })
    .first();

/** Token usage is added to the window the call was admitted in (in the request-log transaction). */
export async function addTokenRows(
  db: Knex | Knex.Transaction,
  rows: { project_id: string; user_id: string; window_start: string; tokens: number }[],
) {
  await db.raw(
    `update rate_limit_counters c set tokens = c.tokens + t.tokens
       from (select project_id, user_id, window_start, sum(tokens)::bigint as tokens
               from json_to_recordset(?::json)
                    as x(project_id uuid, user_id text, window_start timestamptz, tokens bigint)
              group by 1, 2, 3) t
      where c.project_id = t.project_id and c.user_id = t.user_id and c.window_start = t.window_start`,
    [JSON.stringify(rows)],
  );
}

export async function deleteExpiredCounters(db: Knex): Promise<number> {
  const { rowCount } = await db.raw<{ rowCount: number }>(
    `delete from rate_limit_counters where expires_at < now() - interval '1 minute'`,
  );
  return rowCount ?? 0;
}
