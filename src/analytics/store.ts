import type { Knex } from 'knex';
import { percentilesOfHists, type Measures, type SeriesPoint, type StatsAnswer } from './measures';
import { planRollup, queryProperties, type StatsQuery } from './plan';
import { rolledUpProperties } from './property-rollups';
import { bucketList, measuresOf, rawBreakdown, rawTotalsAndSeries, rawUniques } from './raw';
import { cellMeasures, hasHist, rankValues, rollupBreakdown, rollupTotalsAndSeries, type Cell } from './rollup';
import { rollupUniques } from './uniques';
import { userHists } from './user-days';
import { anomalyInputs, anomalySamples } from './anomaly-inputs';
import * as rec from './recommendation-inputs';
import { endUserActivity, findEndUser, listEndUsers, type UserListQuery } from './end-users';
import type { EndUserListRecord, EndUserRecord, UserRequestRecord, UserSessionRecord } from './end-users';
import { scoreStats, type ScoreStatsQuery } from './score-stats';
import { traceStats, type TraceStatsQuery } from './trace-stats';
import { planSpanRollup, spanRollupStats } from './span-rollups';
import { windowMeasures, type WindowAnswer, type WindowQuery } from './window';

/**
 * The analytics boundary: every aggregate query of the request log goes through this interface,
 * so a columnar store (ClickHouse) can replace PostgreSQL for them without touching the routes
 * (docs/analytics.md says what such an implementation needs).
 */

export interface AnalyticsStore {
  requestStats(q: StatsQuery): Promise<StatsAnswer>;
  /** The traces and spans views of /stats (the spans view from the span rollups when they answer it). */
  traceStats(q: TraceStatsQuery): ReturnType<typeof traceStats | typeof spanRollupStats>;
  scoreStats(q: ScoreStatsQuery): ReturnType<typeof scoreStats>;
  /** The bucket starts (ms) of [from, to) in the query's zone and granularity. */
  buckets(q: StatsQuery): Promise<number[]>;
  /** The anomaly detector's window (raw) and hourly baseline (rollups) of one project. */
  anomalyInputs: OmitFirst<typeof anomalyInputs>;
  /** The calls of a window that contributed most to an anomaly. */
  anomalySamples: OmitFirst<typeof anomalySamples>;
  /** The request-log aggregates the recommendations are computed from. */
  recommendationInputs: { [K in keyof typeof rec]: OmitFirst<(typeof rec)[K]> };
  listEndUsers(q: UserListQuery): Promise<EndUserListRecord[]>;
  findEndUser(projectIds: string[], userId: string): Promise<EndUserRecord | undefined>;
  endUserActivity(
    projectId: string,
    userId: string,
    limit: number,
  ): Promise<{ requests: UserRequestRecord[]; sessions: UserSessionRecord[] }>;
  /** The measures of one window, in total or per group (alert rules). */
  windowMeasures(q: WindowQuery): Promise<WindowAnswer>;
}

type OmitFirst<F> = F extends (db: Knex, ...rest: infer A) => infer R ? (...rest: A) => R : never;

export function createPgAnalytics(db: Knex): AnalyticsStore {
  return {
    requestStats: (q) => requestStats(db, q),
    traceStats: (q) => {
      const plan = planSpanRollup(q);
      return plan ? spanRollupStats(db, q, plan) : traceStats(db, q);
    },
    scoreStats: (q) => scoreStats(db, q),
    buckets: (q) => bucketList(db, q),
    anomalyInputs: (...a) => anomalyInputs(db, ...a),
    anomalySamples: (...a) => anomalySamples(db, ...a),
    recommendationInputs: {
      modelUsage: (...a) => rec.modelUsage(db, ...a),
      repeatedBodies: (...a) => rec.repeatedBodies(db, ...a),
      promptVersionUsage: (...a) => rec.promptVersionUsage(db, ...a),
      failingCallers: (...a) => rec.failingCallers(db, ...a),
      longUnstreamed: (...a) => rec.longUnstreamed(db, ...a),
    },
    listEndUsers: (q) => listEndUsers(db, q),
    findEndUser: (projectIds, userId) => findEndUser(db, projectIds, userId),
    endUserActivity: (projectId, userId, limit) => endUserActivity(db, projectId, userId, limit),
    windowMeasures: (q) => windowMeasures(db, (s) => requestStats(db, s), q),
  };
}

const HOURLY = { unit: 'hour', step: 1, ms: 3_600_000 } as const;

async function requestStats(db: Knex, q: StatsQuery): Promise<StatsAnswer> {
  const props = q.source === 'raw' ? [] : queryProperties(q);
  const [buckets, rolledUp] = await Promise.all([
    bucketList(db, q),
    props.length ? rolledUpProperties(db, q.projectIds, props) : undefined,
  ]);
  const fill = (series: Map<number, Measures>, empty: Measures): SeriesPoint[] =>
    buckets.map((b) => ({ bucket: new Date(b).toISOString(), ...(series.get(b) ?? empty) }));
  const plan = planRollup(q, rolledUp);
  if (!plan) {
    // Finer buckets over whole hours (24 h in 30-minute buckets): the rollups still rank the groups.
    const rankPlan = q.groupBy ? planRollup({ ...q, granularity: HOURLY }, rolledUp) : null;
    const ranked = rankPlan && rankPlan.dim !== 'user' ? rankValues(db, q, rankPlan) : Promise.resolve(undefined);
    const groupBy = q.groupBy;
    // Side by side: each sorts its rows for percentiles and distinct counts.
    const [main, bd] = await Promise.all([
      rawTotalsAndSeries(db, q),
      groupBy ? ranked.then((r) => rawBreakdown(db, q, groupBy, r)) : null,
    ]);
    const empty = emptyMeasures(0);
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
  const [main, uniques] = await Promise.all([
    rollupTotalsAndSeries(db, q, wholePlan),
    wholeUniques(db, q, wholePlan.dim),
  ]);
  const u = (b: number | 'total') => ({
    users: uniques ? (uniques.users.get(b) ?? 0) : null,
    sessions: uniques?.sessions ? (uniques.sessions.get(b) ?? 0) : null,
  });
  const series = new Map<number, Measures>();
  for (const [b, c] of main.series) series.set(b, cellMeasures(c, u(b)));
  const empty = {
    ...emptyMeasures(null),
    unique_users: uniques ? 0 : null,
    unique_sessions: uniques?.sessions ? 0 : null,
  };
  const out: StatsAnswer = {
    source: 'rollup',
    totals: cellMeasures(main.totals, u('total')),
    series: fill(series, empty),
    breakdown: null,
  };
  if (!q.groupBy) return out;
  const bd = await rollupBreakdown(db, q, plan, main);
  const dim = plan.dim;
  // Per-user hourly rows keep no histograms: the daily per-user rollups (and edge calls) give the
  // top users theirs, and "other" is the whole less them, bin by bin.
  const hists = hasHist(dim)
    ? null
    : await userHists(
        db,
        q,
        bd.items.map((i) => i.key),
      );
  const exact =
    hists &&
    new Map(
      [...hists].map(([k, h]) => [
        k,
        percentilesOfHists(h.latency.length ? h.latency : null, h.ttft.length ? h.ttft : null),
      ]),
    );
  if (hists && bd.other) {
    const less = (whole: number[] | null, parts: number[][]) =>
      whole && parts.reduce((out, p) => (p.forEach((c, i) => (out[i] = (out[i] ?? 0) - c)), out), [...whole]);
    bd.other.cell.latency = less(
      main.totals.latency,
      [...hists.values()].map((h) => h.latency),
    );
    bd.other.cell.ttft = less(
      main.totals.ttft,
      [...hists.values()].map((h) => h.ttft),
    );
  }
  const itemUniques = (_key: string) => ({ users: dim === 'user' ? 1 : null, sessions: null });
  const cellSeries = (m: Map<number, Cell>) => {
    const s = new Map<number, Measures>();
    for (const [b, c] of m) s.set(b, cellMeasures(c, { users: null, sessions: null }));
    return fill(s, emptyMeasures(null));
  };
  out.breakdown = {
    items: bd.items.map((i) => ({
      key: i.key,
      ...cellMeasures(i.cell, itemUniques(i.key), exact?.get(i.key)),
      series: cellSeries(i.series),
    })),
    other: bd.other && {
      ...cellMeasures(bd.other.cell, { users: null, sessions: null }),
      series: cellSeries(bd.other.series),
    },
  };
  return out;
}

/**
 * Exact unique counts where they are cheap: end users without a filter (per-user rollup rows);
 * both for one end user (its raw rows, indexed). Elsewhere null (`source=raw` counts them).
 */
async function wholeUniques(
  db: Knex,
  q: StatsQuery,
  dim: string,
): Promise<{ users: Map<number | 'total', number>; sessions: Map<number | 'total', number> | null } | null> {
  if (dim === '') return { users: await rollupUniques(db, q), sessions: null };
  if (dim !== 'user') return null;
  // One end user: its rows are few and indexed; count them raw (index-only).
  return rawUniques(db, q);
}

function emptyMeasures(uniques: number | null): Measures {
  const m = measuresOf({ requests: 0, users: 0, sessions: 0 });
  return { ...m, unique_users: uniques, unique_sessions: uniques };
}
