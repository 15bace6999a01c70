import { checkTimeZone, resolveGranularity } from '../analytics/buckets';
import { checkFilter, requestFilterShape, type RequestFilter } from '../filters/request-filter';
import type { GroupBy, StatsQuery } from '../analytics/plan';
import type { AnalyticsStore } from '../analytics/store';
import { parseMetadataPairs, traceMeasuresOf } from '../analytics/trace-stats';
import { badRequest } from '../http/errors';
import { scoreMeasuresOf } from '../analytics/score-stats';
import { GROUP_DIMS, SCORE_GROUPS, type StatsParams } from './schemas';

const HOUR = 3_600_000;

/**
 * GET /stats: resolves the range (default: the 24 hours up to the end of the current hour, so
 * the default answer is whole hours and comes from the rollups), the granularity and the zone,
 * then asks the analytics store.
 */
export async function stats(store: AnalyticsStore, projectIds: string[], p: StatsParams) {
  const tz = checkTimeZone(p.tz);
  const toMs = p.to ? Date.parse(p.to) : Math.ceil(Date.now() / HOUR) * HOUR;
  const fromMs = p.from ? Date.parse(p.from) : toMs - 24 * HOUR;
  if (fromMs >= toMs) throw badRequest('from must be before to', 'invalid_range');
  const granularity = resolveGranularity(p.granularity, fromMs, toMs);
  const from = new Date(fromMs).toISOString();
  const to = new Date(toMs).toISOString();
  const head = { view: p.view, from, to, tz, granularity: { unit: granularity.unit, step: granularity.step } };
  const { view, granularity: _g, tz: _tz, group_by, top, order_by, source, name, span_type, metadata, ...filter } = p;
  if (view === 'scores') return scoreView(store, projectIds, p, { from, to, tz, granularity, head });
  if (view !== 'requests') return traceView(store, projectIds, p, { from, to, tz, granularity, head });
  if (name || span_type || metadata)
    throw badRequest('name, span_type and metadata filter the traces and spans views', 'filter_not_supported');
  const f: RequestFilter = { ...filter, from, to };
  checkFilter(f);
  const groupBy = requestGroup(group_by);
  const q: StatsQuery = { projectIds, filter: f, from, to, granularity, tz, groupBy, top, orderBy: order_by, source };
  const a = await store.requestStats(q);
  return {
    ...head,
    source: a.source,
    totals: a.totals,
    series: a.series,
    breakdown: a.breakdown && { group_by: group_by!, order_by, ...a.breakdown },
  };
}

function requestGroup(g: string | undefined): GroupBy | null {
  if (!g) return null;
  if (g.startsWith('property:')) return { kind: 'property', name: g.slice('property:'.length).toLowerCase() };
  if (!(GROUP_DIMS as readonly string[]).includes(g))
    throw badRequest(`group_by ${g} is not a dimension of the requests view`, 'invalid_group_by');
  return { kind: 'dim', dim: g as (typeof GROUP_DIMS)[number] };
}

const TRACE_GROUPS = { traces: ['name', 'user', 'session'], spans: ['span_type', 'model', 'name'] };

async function traceView(
  store: AnalyticsStore,
  projectIds: string[],
  p: StatsParams,
  r: { from: string; to: string; tz: string; granularity: ReturnType<typeof resolveGranularity>; head: object },
) {
  const view = p.view as 'traces' | 'spans';
  const allowed = view === 'traces' ? ['user_id', 'session_id'] : ['model'];
  const extra = Object.keys(requestFilterShape).filter(
    (k) => !['project_id', 'from', 'to', ...allowed].includes(k) && p[k as keyof StatsParams] !== undefined,
  );
  if (extra.length)
    throw badRequest(`${extra.join(', ')} filter the requests view, not ${view}`, 'filter_not_supported');
  if (view === 'traces' && p.span_type) throw badRequest('span_type filters the spans view', 'filter_not_supported');
  if (p.group_by && !TRACE_GROUPS[view].includes(p.group_by))
    throw badRequest(`group_by of the ${view} view: ${TRACE_GROUPS[view].join(', ')}`, 'invalid_group_by');
  const q = {
    view,
    projectIds,
    from: r.from,
    to: r.to,
    granularity: r.granularity,
    tz: r.tz,
    userId: p.user_id,
    sessionId: p.session_id,
    name: p.name,
    model: p.model,
    spanType: p.span_type,
    metadata: parseMetadataPairs(p.metadata),
    groupBy: (p.group_by ?? null) as never,
    top: p.top,
    source: p.source,
  };
  const [buckets, a] = await Promise.all([
    store.buckets({ ...q, filter: {}, groupBy: null, orderBy: 'requests', source: 'raw' }),
    store.traceStats(q),
  ]);
  return rawAnswer(r.head, buckets, traceMeasuresOf({}, view), p.group_by, a);
}

/** The scores view: filtered by score name only (the request filter does not apply to scores). */
async function scoreView(
  store: AnalyticsStore,
  projectIds: string[],
  p: StatsParams,
  r: { from: string; to: string; tz: string; granularity: ReturnType<typeof resolveGranularity>; head: object },
) {
  const extra = Object.keys(requestFilterShape).filter(
    (k) => !['project_id', 'from', 'to'].includes(k) && p[k as keyof StatsParams] !== undefined,
  );
  if (extra.length || p.span_type || p.metadata)
    throw badRequest(
      'the scores view filters by name only, not ' +
        [...extra, p.span_type && 'span_type', p.metadata && 'metadata'].filter(Boolean).join(', '),
      'filter_not_supported',
    );
  if (p.group_by && !(SCORE_GROUPS as readonly string[]).includes(p.group_by))
    throw badRequest(`group_by of the scores view: ${SCORE_GROUPS.join(', ')}`, 'invalid_group_by');
  const q = {
    projectIds,
    from: r.from,
    to: r.to,
    granularity: r.granularity,
    tz: r.tz,
    name: p.name,
    groupBy: (p.group_by ?? null) as (typeof SCORE_GROUPS)[number] | null,
    top: p.top,
  };
  const [buckets, a] = await Promise.all([
    store.buckets({ ...q, filter: {}, groupBy: null, orderBy: 'requests', source: 'raw' }),
    store.scoreStats(q),
  ]);
  return rawAnswer(r.head, buckets, scoreMeasuresOf({}), p.group_by, a);
}

interface RawStats<M> {
  /** The scores view is always raw; the spans view may come from its rollups. */
  source?: 'raw' | 'rollup';
  totals: M;
  series: Map<number, M>;
  breakdown: { items: { key: string; measures: M; series: Map<number, M> }[] } | null;
}

/** The answer of a view without rollups of its "other" group: zero-filled buckets, the top groups. */
function rawAnswer<M extends object>(
  head: object,
  buckets: number[],
  empty: M,
  groupBy: string | undefined,
  a: RawStats<M>,
) {
  const fill = (s: Map<number, M>) =>
    buckets.map((b) => ({ bucket: new Date(b).toISOString(), ...(s.get(b) ?? empty) }));
  return {
    ...head,
    source: a.source ?? 'raw',
    totals: a.totals,
    series: fill(a.series),
    breakdown: a.breakdown && {
      group_by: groupBy!,
      order_by: 'count',
      items: a.breakdown.items.map((i) => ({ key: i.key, ...i.measures, series: fill(i.series) })),
      other: null,
    },
  };
}
