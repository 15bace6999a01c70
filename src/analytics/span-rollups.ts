import type { Knex } from 'knex';
import { hourAligned, localBucketSql } from './buckets';
import { decodeIntArray, merge, percentiles } from './histogram';
import { traceMeasuresOf, type TraceMeasures, type TraceStatsQuery } from './trace-stats';

/**
 * The spans view from the hourly span rollups (migrations/030_span_rollups.ts): sums add up, the
 * average duration is the summed durations over their count, percentiles come from the merged
 * duration histograms (within 2 % of percentile_cont on the raw rows, or 0.5 ms below 50 ms:
 * spans are binned in whole milliseconds like request latency).
 */
type Dim = '' | 'span_type' | 'model';
export interface SpanPlan {
  dim: Dim;
  value: string | null;
}

/**
 * The rollups answer whole hours (in a zone with a whole-hour offset) with at most one of the
 * span-type and model dimensions among the filters and the grouping; names and metadata are not
 * rolled up (their cardinality is the caller's), so those questions read the raw spans.
 */
export function planSpanRollup(q: TraceStatsQuery): SpanPlan | null {
  if (q.view !== 'spans' || q.source === 'raw' || q.name || q.metadata.length) return null;
  if (!hourAligned(q.tz, Date.parse(q.from), Date.parse(q.to), q.granularity)) return null;
  const filters: [Dim, string][] = [];
  if (q.spanType) filters.push(['span_type', q.spanType]);
  if (q.model) filters.push(['model', q.model]);
  if (filters.length > 1 || q.groupBy === 'name') return null;
  const group = q.groupBy as 'span_type' | 'model' | null;
  const f = filters[0];
  if (group && f && f[0] !== group) return null;
  return { dim: group ?? f?.[0] ?? '', value: f?.[1] ?? null };
}

/** Moves the pending deltas into the rollups; a key whose spans are all gone is removed. */
export async function foldSpanRollups(db: Knex): Promise<number> {
  const sums = 'count, errors, prompt_tokens, completion_tokens, total_tokens, cost_usd, dur_sum, dur_n';
  const add = sums
    .split(', ')
    .map((c) => `${c} = r.${c} + excluded.${c}`)
    .join(', ');
  // Keys in a fixed order: two folds touching the same keys lock them alike (no deadlock).
  const { rows } = await db.raw<{ rows: { project_id: string; dim: string; hour: Date; value: string; n: number }[] }>(
    `with d as (delete from span_rollup_pending returning *),
          u as (insert into span_rollups as r (project_id, dim, hour, value, ${sums}, dur_hist)
                select project_id, dim, hour, value, ${sums
                  .split(', ')
                  .map((c) => `sum(${c})`)
                  .join(', ')}, hist_sum(dur_hist)
                  from d group by project_id, dim, hour, value order by project_id, dim, hour, value
                on conflict (project_id, dim, hour, value)
                do update set ${add}, dur_hist = hist_add(r.dur_hist, excluded.dur_hist)
                returning project_id, dim, hour, value, count)
     select project_id, dim, hour, value, (select count(*) from d)::int as n from u where count = 0
     union all select null, null, null, null, (select count(*) from d)::int`,
  );
  const gone = rows.filter((r) => r.project_id !== null);
  if (gone.length)
    await db.raw(
      `delete from span_rollups r using unnest(?::uuid[], ?::text[], ?::timestamptz[], ?::text[]) g(p, d, h, v)
        where (r.project_id, r.dim, r.hour, r.value) = (g.p, g.d, g.h, g.v) and r.count = 0`,
      [gone.map((r) => r.project_id), gone.map((r) => r.dim), gone.map((r) => r.hour), gone.map((r) => r.value)],
    );
  return Number(rows.find((r) => r.project_id === null)?.n ?? 0);
}

interface SumsRow {
  b: number | null;
  g: string;
  is_total: number;
  count: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  dur_sum: number;
  dur_n: number;
}
interface Cell {
  sums: SumsRow;
  hist: number[];
}

const SUMS_SQL = `sum(count)::bigint as count, sum(errors)::bigint as errors,
  sum(prompt_tokens)::bigint as prompt_tokens,
  sum(completion_tokens)::bigint as completion_tokens, sum(total_tokens)::bigint as total_tokens,
  sum(cost_usd) as cost_usd, sum(dur_sum) as dur_sum, sum(dur_n)::bigint as dur_n`;

/** Sums per (group, bucket) and per group, then their histograms merged here (parsing a binary array is cheap). */
async function cells(db: Knex, q: TraceStatsQuery, dim: Dim, value: string | null, byValue: boolean) {
  const w = ['project_id = any(?::uuid[])', 'dim = ?', 'hour >= ?', 'hour < ?'];
  const a: Knex.RawBinding[] = [q.projectIds, dim, q.from, q.to];
  if (value !== null) {
    w.push('value = ?');
    a.push(value);
  }
  const b = `(extract(epoch from ${localBucketSql('hour', q.granularity)} at time zone ?) * 1000)::bigint`;
  const g = byValue ? 'value' : "''";
  const from = `(select ${b} as b, ${g} as g, * from span_rollups_live where ${w.join(' and ')}) x`;
  const [{ rows }, { rows: hists }] = await Promise.all([
    db.raw<{ rows: SumsRow[] }>(
      `select b, g, grouping(b) as is_total, ${SUMS_SQL} from ${from} group by grouping sets ((g), (b, g))`,
      [q.tz, q.tz, ...a],
    ),
    db.raw<{ rows: { b: number; g: string; h: Buffer | null }[] }>(
      `select b, g, array_send(dur_hist) as h from ${from} where dur_hist is not null`,
      [q.tz, q.tz, ...a],
    ),
  ]);
  const totals = new Map<string, Cell>();
  const series = new Map<string, Map<number, Cell>>();
  for (const r of rows) {
    const cell = { sums: r, hist: [] };
    if (Number(r.is_total) === 1) totals.set(r.g, cell);
    else {
      const m = series.get(r.g) ?? new Map<number, Cell>();
      series.set(r.g, m);
      m.set(Number(r.b), cell);
    }
  }
  for (const r of hists) {
    const h = decodeIntArray(r.h);
    for (const cell of [totals.get(r.g), series.get(r.g)?.get(Number(r.b))]) if (cell) merge(cell.hist, h);
  }
  return { totals, series };
}

const PS = [0.5, 0.9, 0.95, 0.99];
const measuresOf = (c: Cell | undefined): TraceMeasures => {
  if (!c) return traceMeasuresOf({}, 'spans');
  const s = c.sums;
  const n = Number(s.dur_n);
  return traceMeasuresOf(
    { ...s, dur_avg: n > 0 ? Number(s.dur_sum) / n : null, dur_p: percentiles(c.hist, PS) as number[] },
    'spans',
  );
};
/** Buckets and groups whose spans all left (deltas summing to nothing) are not in the answer. */
const seriesOf = (m: Map<number, Cell> | undefined) => {
  const out = new Map<number, TraceMeasures>();
  for (const [b, c] of m ?? []) if (Number(c.sums.count) !== 0) out.set(b, measuresOf(c));
  return out;
};

/** The same answer as traceStats on the raw spans, from the rollups. */
export async function spanRollupStats(db: Knex, q: TraceStatsQuery, plan: SpanPlan) {
  const grouped = q.groupBy !== null;
  const [whole, groups] = await Promise.all([
    cells(db, q, grouped && plan.value === null ? '' : plan.dim, plan.value, false),
    grouped ? cells(db, q, plan.dim, plan.value, true) : null,
  ]);
  const totals = measuresOf(whole.totals.get(''));
  const series = seriesOf(whole.series.get(''));
  if (!groups) return { source: 'rollup' as const, totals, series, breakdown: null };
  const ranked = [...groups.totals.entries()]
    .filter(([, c]) => Number(c.sums.count) !== 0)
    .sort(([ka, a], [kb, b]) => Number(b.sums.count) - Number(a.sums.count) || (ka < kb ? -1 : 1));
  return {
    source: 'rollup' as const,
    totals,
    series,
    breakdown: {
      items: ranked
        .slice(0, q.top)
        .map(([key, c]) => ({ key, measures: measuresOf(c), series: seriesOf(groups.series.get(key)) })),
      rest: ranked.length > q.top,
    },
  };
}
