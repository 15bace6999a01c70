import type { Knex } from 'knex';
import { localBucketSql } from './buckets';
import { requestWhere } from '../filters/request-filter';
import { LATENCY_PS, sumsOf, toMeasures, TTFT_PS, type Measures, type SumsRow } from './measures';
import type { GroupBy, StatsQuery } from './plan';
import { sortingQuery } from './sort-query';

/**
 * Stats from the raw request rows: exact (percentile_cont, count distinct), used when the rollups
 * cannot answer (see plan.ts). Each query is one scan through the (project, created_at) index,
 * the properties GIN index or the per-user/session indexes, with grouping sets for totals.
 */
const MEASURES_SQL = `count(*) as requests, count(*) filter (where status_code >= 400) as errors,
  coalesce(sum(prompt_tokens), 0) as prompt_tokens, coalesce(sum(completion_tokens), 0) as completion_tokens,
  coalesce(sum(total_tokens), 0) as total_tokens, coalesce(sum(cache_read_tokens), 0) as cache_read_tokens,
  coalesce(sum(cache_write_tokens), 0) as cache_write_tokens, coalesce(sum(cost_usd), 0) as cost_usd,
  count(*) filter (where self_hosted) as self_hosted_requests,
  count(*) filter (where cost_usd is null and not self_hosted) as unpriced_requests,
  count(*) filter (where cache_hit) as cache_hits, coalesce(sum(cost_saved_usd), 0) as cache_saved_usd,
  coalesce(sum(latency_ms), 0) as latency_sum,
  percentile_cont(array[${LATENCY_PS}]::float8[]) within group (order by latency_ms) as lat,
  percentile_cont(array[${TTFT_PS}]::float8[]) within group (order by ttfb_ms)
    filter (where streamed and ttfb_ms is not null) as ttft,
  count(distinct user_id) as users, count(distinct session_id) as sessions`;
const INNER_COLS = `r.status_code, r.prompt_tokens, r.completion_tokens, r.total_tokens,
  r.cache_read_tokens, r.cache_write_tokens,
  r.cost_usd, r.self_hosted, r.cache_hit, r.cost_saved_usd, r.latency_ms, r.ttfb_ms, r.streamed,
  r.user_id collate "C" as user_id, r.session_id collate "C" as session_id`;
// Distinct counts and group keys compare bytes ("C"): the same equality (collations are
// deterministic), and locale-aware comparison made their sorts twice as slow.

/** A row of MEASURES_SQL: the sums, the percentiles (float8[], null without values) and the distinct counts. */
interface MeasuresRow extends SumsRow {
  lat?: number[] | null;
  ttft?: number[] | null;
  users: number;
  sessions: number;
}
/** A grouping-sets row: its bucket (epoch ms; null in a total) and whether it is a total (1) or a bucket (0). */
interface BucketRow {
  b: number | null;
  is_total: number;
}

export const measuresOf = (row: MeasuresRow): Measures =>
  toMeasures(
    sumsOf(row),
    { latency: row.lat ?? LATENCY_PS.map(() => null), ttft: row.ttft ?? TTFT_PS.map(() => null) },
    { users: Number(row.users), sessions: Number(row.sessions) },
  );

/** SQL of a group's key over `requests r`. */
function groupKeySql(g: GroupBy): { sql: string; args: string[] } {
  if (g.kind === 'property') return { sql: 'r.properties ->> ?', args: [g.name] };
  const col: Record<string, string> = {
    model: 'r.model',
    provider: 'r.provider',
    user: 'r.user_id',
    session: 'r.session_id',
    api_key: 'r.api_key_id::text',
    prompt_version: 'r.prompt_version_id::text',
    status_code: 'r.status_code::text',
  };
  return { sql: col[g.dim]!, args: [] };
}

/**
 * Rows are grouped by their bucket's local start (`b`, a timestamp; one `?`: the zone) and the
 * groups turned into epoch ms (`B_MS`, one `?`): that conversion is numeric arithmetic, and done
 * per row it cost more than the grouping. Same instants as the zero-filled list (bucketList).
 */
const localB = (q: StatsQuery) => localBucketSql('r.created_at', q.granularity);
const B_MS = '(extract(epoch from b at time zone ?) * 1000)::bigint';

/** Totals and the series (non-empty buckets only; the caller zero-fills). */
export async function rawTotalsAndSeries(db: Knex, q: StatsQuery) {
  const w = requestWhere(q.projectIds, q.filter);
  const rows = await sortingQuery<BucketRow & MeasuresRow>(
    db,
    `select ${B_MS} as b, grouping(b) as is_total, ${MEASURES_SQL}
       from (select ${localB(q)} as b, ${INNER_COLS} from requests r where ${w.sql}) x
      group by grouping sets ((b), ())`,
    [q.tz, q.tz, ...w.args],
  );
  const totalRow = rows.find((r) => Number(r.is_total) === 1)!;
  const series = new Map<number, Measures>();
  for (const r of rows) if (Number(r.is_total) === 0) series.set(Number(r.b), measuresOf(r));
  return { totals: measuresOf(totalRow), series };
}

/**
 * Distinct end users and sessions, per bucket (non-empty ones) and in total: only columns the
 * (project, user, created_at) index covers, so one end user's month is an index-only scan
 * (migrations/025) instead of a heap page per call.
 */
export async function rawUniques(db: Knex, q: StatsQuery) {
  const w = requestWhere(q.projectIds, q.filter);
  const { rows } = await db.raw<{ rows: (BucketRow & { users: number; sessions: number })[] }>(
    `select ${B_MS} as b, grouping(b) as is_total,
            count(distinct user_id) as users, count(distinct session_id) as sessions
       from (select ${localB(q)} as b, r.user_id, r.session_id from requests r where ${w.sql}) x
      group by grouping sets ((b), ())`,
    [q.tz, q.tz, ...w.args],
  );
  const users = new Map<number | 'total', number>();
  const sessions = new Map<number | 'total', number>();
  for (const r of rows) {
    const b = Number(r.is_total) === 1 ? 'total' : Number(r.b);
    users.set(b, Number(r.users));
    sessions.set(b, Number(r.sessions));
  }
  return { users, sessions };
}

export interface RawBreakdown {
  items: { key: string; measures: Measures; series: Map<number, Measures> }[];
  other: { measures: Measures; series: Map<number, Measures> } | null;
}

const ORDER_SQL = {
  requests: 'count(*)',
  cost_usd: 'coalesce(sum(cost_usd), 0)',
  total_tokens: 'coalesce(sum(total_tokens), 0)',
  errors: 'count(*) filter (where status_code >= 400)',
};

/**
 * The top groups by the order measure, each with its measures and series, and the rest as "other".
 * `ranked`: the groups in rank order when the caller knows them already (the rollups, for whole hours).
 */
export async function rawBreakdown(db: Knex, q: StatsQuery, g: GroupBy, ranked?: string[]): Promise<RawBreakdown> {
  const w = requestWhere(q.projectIds, q.filter);
  const key = groupKeySql(g);
  const top =
    ranked ??
    (
      await db.raw<{ rows: { k: string }[] }>(
        `select ${key.sql} as k from requests r
          where ${w.sql} and ${key.sql} is not null
          group by 1 order by ${ORDER_SQL[q.orderBy]} desc, 1 limit ?`,
        [...key.args, ...w.args, ...key.args, q.top + 1],
      )
    ).rows.map((r) => r.k);
  // Calls without a value for the dimension (no user id, no prompt) count in "other".
  const keys = top.slice(0, q.top);
  const rows = await sortingQuery<BucketRow & MeasuresRow & { g: string }>(
    db,
    `select ${B_MS} as b, g, grouping(b) as is_total, ${MEASURES_SQL}
       from (select case when k = any(?::text[]) then k else '\u0001other' end as g, y.*
               from (select ${localB(q)} as b, ${key.sql} collate "C" as k, ${INNER_COLS}
                       from requests r where ${w.sql}) y) x
      group by grouping sets ((g), (b, g))`,
    [q.tz, keys, q.tz, ...key.args, ...w.args],
  );
  const cells = new Map<string, { measures?: Measures; series: Map<number, Measures> }>();
  for (const r of rows) {
    const k = r.g;
    const cell: { measures?: Measures; series: Map<number, Measures> } = cells.get(k) ?? { series: new Map() };
    cells.set(k, cell);
    if (Number(r.is_total) === 1) cell.measures = measuresOf(r);
    else cell.series.set(Number(r.b), measuresOf(r));
  }
  const items = keys.map((k) => ({ key: k, measures: cells.get(k)!.measures!, series: cells.get(k)!.series }));
  const o = cells.get('\u0001other');
  return { items, other: o?.measures ? { measures: o.measures, series: o.series } : null };
}

/** The zero-filled list of bucket starts (ms) of [from, to) in the query's zone, deduplicated. */
export async function bucketList(db: Knex, q: StatsQuery): Promise<number[]> {
  const step = `interval '${q.granularity.step} ${q.granularity.unit}'`;
  const { rows } = await db.raw<{ rows: { t: number }[] }>(
    `select distinct (extract(epoch from g at time zone ?) * 1000)::bigint as t
       from generate_series(${localBucketSql('?::timestamptz', q.granularity)},
                            (?::timestamptz - interval '1 microsecond') at time zone ?, ${step}) g
      order by 1`,
    [q.tz, q.from, q.tz, q.to, q.tz],
  );
  return rows.map((r) => Number(r.t));
}
