import type { Knex } from 'knex';
import { type Measures } from './measures';
import { planRollup, type StatsQuery } from './plan';
import { bucketList, measuresOf, rawBreakdown, rawTotalsAndSeries } from './raw';
import { cellMeasures, hasHist, rollupBreakdown, rollupTotalsAndSeries, type Cell } from './rollup';
import { rollupUniques } from './uniques';
import { requestWhere } from './filters';
import { endUserActivity, findEndUser, listEndUsers, type UserListQuery } from './end-users';
import { traceStats, type TraceStatsQuery } from './trace-stats';
import { windowMeasures, type WindowAnswer, type WindowQuery } from './window';

/**
 * The analytics boundary: every aggregate query of the request log goes through this interface,
 * so a columnar store (ClickHouse) can replace PostgreSQL for them without touching the routes
 * (docs/analytics.md says what such an implementation needs).
 */
export interface SeriesPoint extends Measures {
  bucket: string;
}
export interface StatsAnswer {
  source: 'rollup' | 'raw';
  totals: Measures;
  series: SeriesPoint[];
  breakdown: { items: (Measures & { key: string; series: SeriesPoint[] })[]; other: (Measures & { series: SeriesPoint[] }) | null } | null;
}

export interface AnalyticsStore {
  requestStats(q: StatsQuery): Promise<StatsAnswer>;
  /** The traces and spans views of /stats. */
  traceStats(q: TraceStatsQuery): ReturnType<typeof traceStats>;
  /** The bucket starts (ms) of [from, to) in the query's zone and granularity. */
  buckets(q: StatsQuery): Promise<number[]>;
  listEndUsers(q: UserListQuery): Promise<Record<string, unknown>[]>;
  findEndUser(projectIds: string[], userId: string): Promise<Record<string, unknown> | undefined>;
  endUserActivity(projectId: string, userId: string, limit: number): Promise<{ requests: Record<string, unknown>[]; sessions: Record<string, unknown>[] }>;
  /** The measures of one window, in total or per group (alert rules). */
  windowMeasures(q: WindowQuery): Promise<WindowAnswer>;
}

type Row = Record<string, unknown>;

export function createPgAnalytics(db: Knex): AnalyticsStore {
  return {
    requestStats: (q) => requestStats(db, q),
    traceStats: (q) => traceStats(db, q),
    buckets: (q) => bucketList(db, q),
    listEndUsers: (q) => listEndUsers(db, q),
    findEndUser: (projectIds, userId) => findEndUser(db, projectIds, userId),
    endUserActivity: (projectId, userId, limit) => endUserActivity(db, projectId, userId, limit),
    windowMeasures: (q) => windowMeasures(db, (s) => requestStats(db, s), q),
  };
}

async function requestStats(db: Knex, q: StatsQuery): Promise<StatsAnswer> {
  const buckets = await bucketList(db, q);
  const fill = (series: Map<number, Measures>, empty: Measures): SeriesPoint[] =>
    buckets.map((b) => ({ bucket: new Date(b).toISOString(), ...(series.get(b) ?? empty) }));
  const plan = planRollup(q);
  if (!plan) {
    const main = await rawTotalsAndSeries(db, q);
    const empty = emptyMeasures(0);
    const bd = q.groupBy ? await rawBreakdown(db, q, q.groupBy) : null;
    return {
      source: 'raw',
      totals: main.totals,
      series: fill(main.series, empty),
      breakdown: bd && {
        items: bd.items.map((i) => ({ key: i.key, ...i.measures, series: fill(i.series, empty) })),
        other: bd.other && { ...bd.other.measures, series: fill(bd.other.series, empty) },
      },
    };
  }
  // The whole comes from the totals rows unless one value of a dimension is asked for.
  const wholePlan = plan.value !== null ? plan : { dim: '' as const, value: null };
  const [main, uniques] = await Promise.all([rollupTotalsAndSeries(db, q, wholePlan), wholeUniques(db, q, wholePlan.dim)]);
  const u = (b: number | 'total') => ({ users: uniques ? (uniques.users.get(b) ?? 0) : null, sessions: uniques?.sessions ? (uniques.sessions.get(b) ?? 0) : null });
  const series = new Map<number, Measures>();
  for (const [b, c] of main.series) series.set(b, cellMeasures(c, u(b)));
  const empty = { ...emptyMeasures(null), unique_users: uniques ? 0 : null, unique_sessions: uniques?.sessions ? 0 : null };
  const out: StatsAnswer = { source: 'rollup', totals: cellMeasures(main.totals, u('total')), series: fill(series, empty), breakdown: null };
  if (!q.groupBy || q.groupBy.kind !== 'dim') return out;
  const bd = await rollupBreakdown(db, q, plan, main);
  const dim = q.groupBy.dim;
  const exact = hasHist(dim) ? null : await rawPercentilesByKey(db, q, dim, bd.items.map((i) => i.key));
  const itemUniques = (_key: string) => ({ users: dim === 'user' ? 1 : null, sessions: null });
  const cellSeries = (m: Map<number, Cell>) => {
    const s = new Map<number, Measures>();
    for (const [b, c] of m) s.set(b, cellMeasures(c, { users: null, sessions: null }));
    return fill(s, emptyMeasures(null));
  };
  out.breakdown = {
    items: bd.items.map((i) => ({ key: i.key, ...cellMeasures(i.cell, itemUniques(i.key), exact?.get(i.key)), series: cellSeries(i.series) })),
    other: bd.other && { ...cellMeasures(bd.other.cell, { users: null, sessions: null }), series: cellSeries(bd.other.series) },
  };
  return out;
}

/**
 * Exact unique counts where they are cheap: end users without a filter (per-user rollup rows);
 * both for one end user (its raw rows, indexed). Elsewhere null (`source=raw` counts them).
 */
async function wholeUniques(db: Knex, q: StatsQuery, dim: string): Promise<{ users: Map<number | 'total', number>; sessions: Map<number | 'total', number> | null } | null> {
  if (dim === '') return { users: await rollupUniques(db, q), sessions: null };
  if (dim !== 'user') return null;
  // One end user or session: its rows are few and indexed; count them raw.
  const raw = await rawTotalsAndSeries(db, q);
  const users = new Map<number | 'total', number>([['total', raw.totals.unique_users ?? 0]]);
  const sessions = new Map<number | 'total', number>([['total', raw.totals.unique_sessions ?? 0]]);
  for (const [b, m] of raw.series) users.set(b, m.unique_users ?? 0), sessions.set(b, m.unique_sessions ?? 0);
  return { users, sessions };
}

/** Exact percentiles of a few end users or sessions (no histograms on those rollup rows). */
async function rawPercentilesByKey(db: Knex, q: StatsQuery, _dim: string, keys: string[]) {
  const col = 'user_id';
  const w = requestWhere(q.projectIds, { ...q.filter, from: q.from, to: q.to });
  const { rows } = await db.raw(
    `select r.${col} as k, percentile_cont(array[0.5,0.9,0.95,0.99]::float8[]) within group (order by latency_ms) as lat,
            percentile_cont(array[0.5,0.95]::float8[]) within group (order by ttfb_ms) filter (where streamed and ttfb_ms is not null) as ttft
       from requests r where ${w.sql} and r.${col} = any(?::text[]) group by 1`,
    [...w.args, keys],
  );
  const m = new Map<string, { latency: (number | null)[]; ttft: (number | null)[] }>();
  for (const r of rows as Row[]) m.set(r.k as string, { latency: (r.lat as number[]) ?? [null, null, null, null], ttft: (r.ttft as number[]) ?? [null, null] });
  return m;
}

function emptyMeasures(uniques: number | null): Measures {
  const m = measuresOf({ requests: 0, users: 0, sessions: 0 });
  return { ...m, unique_users: uniques, unique_sessions: uniques };
}
