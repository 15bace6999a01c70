import type { Knex } from 'knex';
import { localBucketSql, type Granularity } from './buckets';
import type { StatsQuery } from './plan';
import { isoMs } from '../db/convert';

/**
 * Exact unique end users from the rollups, per bucket and in total (distinct user ids over the
 * projects in scope, as the raw rows count them).
 *
 * Each (UTC hour, user) pair is one per-user rollup row, so an hourly bucket's count is a count of
 * rows. A distinct count over a month would read ~720 rows per user; `end_user_days` (kept by the
 * fold) holds one row per (UTC day, user), so whole UTC days read ~30 rows per user and only the
 * ragged hours at either end of the range read hourly rows. Batches not folded yet are counted
 * from their rows (seconds of calls; the `_live` views). Local days outside UTC straddle two UTC days: those
 * buckets count hourly rows (slower; docs/analytics.md).
 */
const H = 3_600_000;
const D = 24 * H;
const UTC_NAMES = new Set([
  'UTC',
  'Etc/UTC',
  'Etc/UCT',
  'UCT',
  'GMT',
  'Etc/GMT',
  'Etc/GMT0',
  'Etc/GMT+0',
  'Etc/GMT-0',
  'GMT0',
  'Etc/Universal',
  'Universal',
  'Etc/Zulu',
  'Zulu',
  'Etc/Greenwich',
  'Greenwich',
]);

interface Sql {
  sql: string;
  args: Knex.RawBinding[];
}
const bucketMs = (expr: string, g: Granularity) =>
  `(extract(epoch from ${localBucketSql(expr, g)} at time zone ?) * 1000)::bigint`;

/** Per-user cells of batches not folded yet, in [from, to): (project_id, t, value). */
const pending = (projectIds: string[], from: string, to: string): Sql => ({
  sql: `select c.project_id, c.bucket as t, c.value
          from rollup_pending p cross join lateral rollup_cells(p.lo, p.hi, p.ids) c
         where c.dim = 'user' and c.project_id = any(?::uuid[]) and c.bucket >= ? and c.bucket < ?`,
  args: [projectIds, from, to],
});

/** Hourly per-user rows, folded and pending, in [from, to): (project_id, t, value). */
const hours = (projectIds: string[], from: string, to: string): Sql => ({
  sql: `select project_id, bucket as t, value from request_rollups_live
         where project_id = any(?::uuid[]) and dim = 'user' and bucket >= ? and bucket < ?`,
  args: [projectIds, from, to],
});

/**
 * (project_id, t, value) rows covering every user of [fromMs, toMs): day rows for whole UTC days, hourly rows at the
 * edges.
 */
function presence(projectIds: string[], fromMs: number, toMs: number): Sql {
  const d0 = Math.ceil(fromMs / D) * D;
  const d1 = Math.floor(toMs / D) * D;
  if (d1 <= d0) return hours(projectIds, isoMs(fromMs), isoMs(toMs));
  const parts = [
    {
      sql: `select project_id, (day::timestamp at time zone 'UTC') as t, user_id as value from end_user_days_live
             where project_id = any(?::uuid[]) and day >= ?::date and day < ?::date`,
      args: [projectIds, isoMs(d0).slice(0, 10), isoMs(d1).slice(0, 10)],
    },
    hours(projectIds, isoMs(fromMs), isoMs(d0)),
    hours(projectIds, isoMs(d1), isoMs(toMs)),
  ];
  return { sql: parts.map((p) => p.sql).join('\nunion all\n'), args: parts.flatMap((p) => p.args) };
}

/** Whether every bucket is a union of whole UTC days (UTC days, weeks, months). */
function utcDayBuckets(q: StatsQuery): boolean {
  if (!['day', 'week', 'month'].includes(q.granularity.unit)) return false;
  try {
    return UTC_NAMES.has(new Intl.DateTimeFormat('en-US', { timeZone: q.tz }).resolvedOptions().timeZone);
  } catch {
    return false;
  }
}

/** The per-bucket counts: rows of hourly buckets, else distinct users of each bucket. */
function seriesSql(q: StatsQuery): Sql {
  const g = q.granularity;
  if (g.unit === 'hour' && g.step === 1 && q.projectIds.length === 1) {
    // A folded (hour, user) pair is one row; a pending pair counts when no folded row has it.
    const p = pending(q.projectIds, q.from, q.to);
    return {
      // The bucket expression on the ~720 grouped hours, not on every (hour, user) row.
      sql: `select ${bucketMs('t', g)} as b, sum(n) as n from (
              select bucket as t, count(*) as n from request_rollups
               where project_id = any(?::uuid[]) and dim = 'user' and bucket >= ? and bucket < ? group by 1
              union all
              select c.t, count(*) from (select distinct project_id, t, value from (${p.sql}) p) c
               where not exists (select 1 from request_rollups r
                                  where r.project_id = c.project_id and r.dim = 'user' and r.bucket = c.t
                                    and r.value = c.value)
               group by 1
            ) x group by 1`,
      args: [q.tz, q.tz, q.projectIds, q.from, q.to, ...p.args],
    };
  }
  const src = utcDayBuckets(q)
    ? presence(q.projectIds, Date.parse(q.from), Date.parse(q.to))
    : hours(q.projectIds, q.from, q.to);
  // Distinct (UTC hour or day, user) pairs first, so the bucket expression runs once per distinct t.
  return {
    sql: `select ${bucketMs('t', g)} as b, count(distinct value) as n
            from (select distinct t, value from (${src.sql}) y) x group by 1`,
    args: [q.tz, q.tz, ...src.args],
  };
}

export async function rollupUniques(db: Knex, q: StatsQuery): Promise<Map<number | 'total', number>> {
  const all = presence(q.projectIds, Date.parse(q.from), Date.parse(q.to));
  const s = seriesSql(q);
  const [total, series] = await Promise.all([
    db.raw<{ rows: { n: number }[] }>(`select count(distinct value) as n from (${all.sql}) x`, all.args),
    db.raw<{ rows: { b: number; n: number }[] }>(s.sql, s.args),
  ]);
  const users = new Map<number | 'total', number>([['total', Number(total.rows[0]?.n ?? 0)]]);
  for (const r of series.rows) users.set(Number(r.b), Number(r.n));
  return users;
}
