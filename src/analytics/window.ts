import type { Measures } from './measures';
import type { GroupBy, OrderBy, StatsQuery } from './plan';
import type { RequestFilter } from './filters';
import type { StatsAnswer } from './store';

/**
 * The measures of one time window, in total or per group (alert rules, docs/alerts.md). A window
 * of whole UTC hours under a filter the rollups answer reads the rollups; anything else (minutes,
 * custom properties, two dimensions) reads the raw rows of the window through the
 * (project_id, created_at) index — the same planner as /stats (plan.ts).
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
  source: 'rollup' | 'raw';
  totals: Measures;
  /** Per group (null without `groupBy`), ranked by `orderBy`; calls without a value of the dimension are left out. */
  groups: { key: string; measures: Measures }[] | null;
}

// One bucket per UTC day: the window's series is not used, only its totals.
const ONE_BUCKET = { unit: 'day' as const, step: 1, ms: 86_400_000 };

export async function windowMeasures(requestStats: (q: StatsQuery) => Promise<StatsAnswer>, q: WindowQuery): Promise<WindowAnswer> {
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
  const groups = q.groupBy ? (a.breakdown?.items ?? []).map(({ key, series: _s, ...measures }) => ({ key, measures })) : null;
  return { source: a.source, totals: a.totals, groups };
}
