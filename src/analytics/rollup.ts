import type { Knex } from 'knex';
import { localBucketSql } from './buckets';
import { addSums, LATENCY_PS, mergeHist, noPercentiles, percentilesOfHists, SUM_KEYS, sumsOf, toMeasures, TTFT_PS, zeroSums, type Measures, type Sums } from './measures';
import type { RollupPlan, StatsQuery } from './plan';

/**
 * Stats from the hourly rollups (src/analytics/rollup-writer.ts): sums add up, latency and
 * time-to-first-token percentiles come from the merged log-scale histograms.
 */
type Row = Record<string, unknown>;
const HIST_DIMS = new Set(['', 'model', 'provider', 'status_code', 'api_key', 'prompt_version', 'cache_hit', 'streamed']);
export const hasHist = (dim: string) => HIST_DIMS.has(dim);

const SUMS_SQL = SUM_KEYS.map((k) => `sum(${k}) as ${k}`).join(', ');
const bucketMs = (q: StatsQuery) => `(extract(epoch from ${localBucketSql('bucket', q.granularity)} at time zone ?) * 1000)::bigint`;

function scope(q: StatsQuery, plan: RollupPlan, values?: string[]): { sql: string; args: Knex.RawBinding[] } {
  const w = ['project_id = any(?::uuid[])', 'dim = ?', 'bucket >= ?', 'bucket < ?'];
  const a: Knex.RawBinding[] = [q.projectIds, plan.dim, q.from, q.to];
  if (plan.value !== null) w.push('value = ?'), a.push(plan.value);
  if (values) w.push('value = any(?::text[])'), a.push(values);
  return { sql: w.join(' and '), args: a };
}

export interface Cell {
  sums: Sums;
  latency: number[] | null;
  ttft: number[] | null;
}
const emptyCell = (): Cell => ({ sums: zeroSums(), latency: null, ttft: null });

/** Sums and histograms per (group, bucket) and per group; group is '' without `byValue`. */
async function cells(db: Knex, q: StatsQuery, plan: RollupPlan, opts: { byValue?: string[]; hist: boolean }) {
  const s = scope(q, plan, opts.byValue);
  const g = opts.byValue ? 'value' : "''";
  const { rows } = await db.raw(
    `select b, g, grouping(b) as is_total, ${SUMS_SQL}
       from (select ${bucketMs(q)} as b, ${g} as g, * from request_rollups_live where ${s.sql}) x
      group by grouping sets ((g), (b, g))`,
    [q.tz, q.tz, ...s.args],
  );
  const totals = new Map<string, Cell>();
  const series = new Map<string, Map<number, Cell>>();
  for (const r of rows as Row[]) {
    const cell: Cell = { sums: sumsOf(r), latency: null, ttft: null };
    if (Number(r.is_total) === 1) totals.set(r.g as string, cell);
    else {
      const m = series.get(r.g as string) ?? new Map<number, Cell>();
      series.set(r.g as string, m);
      m.set(Number(r.b), cell);
    }
  }
  if (opts.hist && hasHist(plan.dim)) {
    // Bin counts summed in SQL: one row per (group[, bucket], bin) instead of whole arrays.
    const bucketLevel = !opts.byValue;
    const { rows: bins } = await db.raw(
      `select kind, ${bucketLevel ? 'b, grouping(b)' : 'null as b, 1'} as is_total, g, i, sum(c)::bigint as n from (
         select 'l' as kind, ${bucketMs(q)} as b, ${g} as g, u.i, u.c from request_rollups_live r, unnest(r.latency_hist) with ordinality u(c, i) where ${s.sql} and u.c > 0
         union all
         select 't', ${bucketMs(q)}, ${g}, u.i, u.c from request_rollups_live r, unnest(r.ttft_hist) with ordinality u(c, i) where ${s.sql} and u.c > 0) x
       group by ${bucketLevel ? 'grouping sets ((kind, g, i), (kind, b, g, i))' : 'grouping sets ((kind, g, i))'}`,
      [q.tz, q.tz, ...s.args, q.tz, q.tz, ...s.args],
    );
    for (const r of bins as Row[]) {
      const total = Number(r.is_total) === 1 || !bucketLevel;
      const cell = total ? totals.get(r.g as string) : series.get(r.g as string)?.get(Number(r.b));
      if (!cell) continue;
      const key = r.kind === 'l' ? 'latency' : 'ttft';
      const h = (cell[key] ??= []);
      const i = Number(r.i) - 1;
      while (h.length <= i) h.push(0);
      h[i] = Number(r.n);
    }
  }
  return { totals, series };
}

export const cellMeasures = (c: Cell, uniques: { users: number | null; sessions: number | null }, exact?: { latency: (number | null)[]; ttft: (number | null)[] }): Measures =>
  toMeasures(c.sums, exact ?? (c.latency || c.ttft ? percentilesOfHists(c.latency, c.ttft) : noPercentiles()), uniques);

export async function rollupTotalsAndSeries(db: Knex, q: StatsQuery, plan: RollupPlan) {
  const { totals, series } = await cells(db, q, plan, { hist: true });
  return { totals: totals.get('') ?? emptyCell(), series: series.get('') ?? new Map<number, Cell>() };
}

/** Unique end users per bucket and in total: the distinct per-user rollup rows of the range. */
export async function rollupUniques(db: Knex, q: StatsQuery) {
  const { rows } = await db.raw(
    `select b, grouping(b) as is_total, count(distinct value) as n
       from (select ${bucketMs(q)} as b, value from request_rollups_live
              where project_id = any(?::uuid[]) and dim = 'user' and bucket >= ? and bucket < ?) x
      group by grouping sets ((b), ())`,
    [q.tz, q.tz, q.projectIds, q.from, q.to],
  );
  const users = new Map<number | 'total', number>();
  for (const r of rows as Row[]) users.set(Number(r.is_total) === 1 ? 'total' : Number(r.b), Number(r.n));
  return users;
}

const ORDER_COL = { requests: 'requests', cost_usd: 'cost_usd', total_tokens: 'total_tokens', errors: 'errors' };

export async function rollupBreakdown(db: Knex, q: StatsQuery, plan: RollupPlan, total: { totals: Cell; series: Map<number, Cell> }) {
  const s = scope(q, plan);
  const { rows: top } = await db.raw(
    `select value as k from request_rollups_live where ${s.sql} group by value order by sum(${ORDER_COL[q.orderBy]}) desc, value limit ?`,
    [...s.args, q.top + 1],
  );
  const keys = (top as Row[]).slice(0, q.top).map((r) => r.k as string);
  const { totals, series } = await cells(db, q, plan, { byValue: keys, hist: true });
  const items = keys.map((k) => ({ key: k, cell: totals.get(k) ?? emptyCell(), series: series.get(k) ?? new Map<number, Cell>() }));
  if ((top as Row[]).length <= q.top) return { items, other: null };
  // The rest: the whole (dim '' rows) less the top groups, bucket by bucket; histograms too.
  const hist = hasHist(plan.dim);
  const other: Cell = subtract(total.totals, items.map((i) => i.cell), hist);
  const otherSeries = new Map<number, Cell>();
  for (const [b, c] of total.series) otherSeries.set(b, subtract(c, items.map((i) => i.series.get(b) ?? emptyCell()), false));
  return { items, other: { cell: other, series: otherSeries } };
}

/** The whole less its parts; histograms only when the parts have theirs (`hist`). */
function subtract(whole: Cell, parts: Cell[], hist: boolean): Cell {
  const sums = addSums(zeroSums(), whole.sums);
  for (const p of parts) for (const k of SUM_KEYS) sums[k] -= p.sums[k];
  const minus = (h: number[] | null, ps: (number[] | null)[]) => {
    if (!h || !hist) return null;
    const out = mergeHist([], h);
    for (const p of ps) p?.forEach((c, i) => (out[i] = (out[i] ?? 0) - c));
    return out;
  };
  return { sums, latency: minus(whole.latency, parts.map((p) => p.latency)), ttft: minus(whole.ttft, parts.map((p) => p.ttft)) };
}

export { LATENCY_PS, TTFT_PS };
