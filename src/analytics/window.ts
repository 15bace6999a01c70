import type { Knex } from 'knex';
import { requestWhere, type RequestFilter } from '../filters/request-filter';
import { addSums, mergeHist, sumsOf, type Measures, type StatsAnswer, type SumsRow } from './measures';
import { planRollup, type GroupBy, type OrderBy, type StatsQuery } from './plan';
import { cellMeasures, hasHist, rollupTotalsAndSeries } from './rollup';
import { isoMs } from '../db/convert';

/**
 * The measures of one time window, in total or per group (alert rules, docs/alerts.md). A window
 * of whole UTC hours under a filter the rollups answer reads the rollups; anything else (minutes,
 * custom properties, two dimensions) reads the raw rows of the window through the
 * (project_id, created_at) index — the same planner as /stats (plan.ts). A window spanning
 * whole hours without being whole hours itself (a 3-hour window evaluated at 12:07) and without
 * groups reads those hours from the rollups and only its two ragged edges raw ("mixed"): sums
 * exact, percentiles from the merged histograms (within 2 %, as rollup answers are).
 */
export interface WindowQuery {
  projectIds: string[];
  filter: RequestFilter;
  /** [from, to), ISO. */
  from: string;
  to: string;
  groupBy: GroupBy | null;
  /** What ranks the groups kept when there are more than `limit`. */
  orderBy: OrderBy;
  limit: number;
}

export interface WindowAnswer {
  source: 'rollup' | 'raw' | 'mixed';
  totals: Measures;
  /** Per group (null without `groupBy`), ranked by `orderBy`; calls without a value of the dimension are left out. */
  groups: { key: string; measures: Measures }[] | null;
}

// One bucket per UTC day: the window's series is not used, only its totals.
const ONE_BUCKET = { unit: 'day' as const, step: 1, ms: 86_400_000 };

export async function windowMeasures(
  db: Knex,
  requestStats: (q: StatsQuery) => Promise<StatsAnswer>,
  q: WindowQuery,
): Promise<WindowAnswer> {
  const mixed = q.groupBy ? null : await mixedWindow(db, q);
  if (mixed) return mixed;
  const a = await requestStats({
    projectIds: q.projectIds,
    filter: { ...q.filter, from: q.from, to: q.to },
    from: q.from,
    to: q.to,
    granularity: ONE_BUCKET,
    tz: 'UTC',
    groupBy: q.groupBy,
    top: q.limit,
    orderBy: q.orderBy,
    source: 'auto',
  });
  const groups = q.groupBy
    ? (a.breakdown?.items ?? []).map(({ key, series: _s, ...measures }) => ({ key, measures }))
    : null;
  return { source: a.source, totals: a.totals, groups };
}

const H = 3_600_000;
const EDGE_SUMS = `count(*) as requests, count(*) filter (where status_code >= 400) as errors,
  coalesce(sum(prompt_tokens), 0) as prompt_tokens, coalesce(sum(completion_tokens), 0) as completion_tokens,
  coalesce(sum(total_tokens), 0) as total_tokens, coalesce(sum(cache_read_tokens), 0) as cache_read_tokens,
  coalesce(sum(cache_write_tokens), 0) as cache_write_tokens, coalesce(sum(cost_usd), 0) as cost_usd,
  count(*) filter (where self_hosted) as self_hosted_requests,
  count(*) filter (where cost_usd is null and not self_hosted) as unpriced_requests,
  count(*) filter (where cache_hit) as cache_hits, coalesce(sum(cost_saved_usd), 0) as cache_saved_usd,
  coalesce(sum(latency_ms), 0) as latency_sum,
  hist_of(array_agg(hist_bin(latency_ms))) as lat,
  hist_of(array_agg(hist_bin(ttfb_ms)) filter (where streamed and ttfb_ms is not null)) as ttft`;
/** The row of EDGE_SUMS: the sums and the edges' histograms (integer[], null without values). */
interface EdgeRow extends SumsRow {
  lat: number[] | null;
  ttft: number[] | null;
}

/** Whole hours from the rollups plus the raw edges; null when the window cannot be split that way. */
async function mixedWindow(db: Knex, q: WindowQuery): Promise<WindowAnswer | null> {
  const from = Date.parse(q.from);
  const to = Date.parse(q.to);
  const h1 = Math.ceil(from / H) * H;
  const h2 = Math.floor(to / H) * H;
  if (h2 - h1 < H || (h1 === from && h2 === to)) return null;
  const mid: StatsQuery = {
    projectIds: q.projectIds,
    filter: { ...q.filter, from: isoMs(h1), to: isoMs(h2) },
    from: isoMs(h1),
    to: isoMs(h2),
    granularity: ONE_BUCKET,
    tz: 'UTC',
    groupBy: null,
    top: 1,
    orderBy: 'requests',
    source: 'auto',
  };
  const plan = planRollup(mid);
  // Per-user rollup rows keep no histograms: their percentiles could not be merged.
  if (!plan || !hasHist(plan.dim)) return null;
  const head = requestWhere(q.projectIds, { ...q.filter, from: q.from, to: isoMs(h1) });
  const tail = requestWhere(q.projectIds, { ...q.filter, from: isoMs(h2), to: q.to });
  const cols =
    'r.status_code, r.prompt_tokens, r.completion_tokens, r.total_tokens, r.cache_read_tokens, ' +
    'r.cache_write_tokens, r.cost_usd, r.self_hosted, r.cache_hit, r.cost_saved_usd, ' +
    'r.latency_ms, r.ttfb_ms, r.streamed';
  const edgeSql = (w: { sql: string }) => `select ${cols} from requests r where ${w.sql}`;
  const [middle, { rows }] = await Promise.all([
    rollupTotalsAndSeries(db, mid, plan),
    db.raw<{ rows: EdgeRow[] }>(`select ${EDGE_SUMS} from (${edgeSql(head)} union all ${edgeSql(tail)}) x`, [
      ...head.args,
      ...tail.args,
    ]),
  ]);
  const edge = rows[0]!;
  const cell = {
    sums: addSums(sumsOf(edge), middle.totals.sums),
    latency: mergeHist(mergeHist([], middle.totals.latency), edge.lat),
    ttft: mergeHist(mergeHist([], middle.totals.ttft), edge.ttft),
  };
  return { source: 'mixed', totals: cellMeasures(cell, { users: null, sessions: null }), groups: null };
}
