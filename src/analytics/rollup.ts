import type { Knex } from 'knex';
import { localBucketSql } from './buckets';
import { decodeIntArray } from './histogram';
import {
  addSums,
  mergeHist,
  noPercentiles,
  percentilesOfHists,
  SUM_KEYS,
  sumsOf,
  toMeasures,
  zeroSums,
  type Measures,
  type Sums,
} from './measures';
import type { SumsRow } from './measures';
import type { RollupPlan, StatsQuery } from './plan';
import { rankUsers } from './user-days';

/**
 * Stats from the hourly rollups (kept by the fold, src/analytics/fold.ts): sums add up, latency and
 * time-to-first-token percentiles come from the merged log-scale histograms.
 */
const HIST_DIMS = new Set([
  '',
  'model',
  'provider',
  'status_code',
  'api_key',
  'prompt_version',
  'cache_hit',
  'streamed',
]);
/** Rolled-up custom properties (dim `property:<name>`, migrations/024) keep histograms too. */
export const hasHist = (dim: string) => HIST_DIMS.has(dim) || dim.startsWith('property:');

const SUMS_SQL = SUM_KEYS.map((k) => `sum(${k}) as ${k}`).join(', ');
const bucketMs = (q: StatsQuery) =>
  `(extract(epoch from ${localBucketSql('bucket', q.granularity)} at time zone ?) * 1000)::bigint`;

function scope(q: StatsQuery, plan: RollupPlan, values?: string[]): { sql: string; args: Knex.RawBinding[] } {
  const w = ['project_id = any(?::uuid[])', 'dim = ?', 'bucket >= ?', 'bucket < ?'];
  const a: Knex.RawBinding[] = [q.projectIds, plan.dim, q.from, q.to];
  if (plan.value !== null) {
    w.push('value = ?');
    a.push(plan.value);
  }
  if (values) {
    w.push('value = any(?::text[])');
    a.push(values);
  }
  return { sql: w.join(' and '), args: a };
}

export interface Cell {
  sums: Sums;
  latency: number[] | null;
  ttft: number[] | null;
}
const emptyCell = (): Cell => ({ sums: zeroSums(), latency: null, ttft: null });

/** A row of `cells`: the sums of a group ('' without values) per bucket (epoch ms) or in total (b null, is_total 1). */
interface CellRow extends SumsRow {
  b: number | null;
  g: string;
  is_total: number;
}
/** A rollup row's histograms (integer[], null where the dimension keeps none), keyed like CellRow. */
interface HistRow {
  b: number | null;
  g: string;
  latency_hist: Buffer | null;
  ttft_hist: Buffer | null;
}

/** Sums and histograms per (group, bucket) and per group; group is '' without `byValue`. */
async function cells(db: Knex, q: StatsQuery, plan: RollupPlan, opts: { byValue?: string[]; hist: boolean }) {
  const s = scope(q, plan, opts.byValue);
  const g = opts.byValue ? 'value' : "''";
  const { rows } = await db.raw<{ rows: CellRow[] }>(
    `select b, g, grouping(b) as is_total, ${SUMS_SQL}
       from (select ${bucketMs(q)} as b, ${g} as g, * from request_rollups_live where ${s.sql}) x
      group by grouping sets ((g), (b, g))`,
    [q.tz, q.tz, ...s.args],
  );
  const totals = new Map<string, Cell>();
  const series = new Map<string, Map<number, Cell>>();
  for (const r of rows) {
    const cell: Cell = { sums: sumsOf(r), latency: null, ttft: null };
    if (Number(r.is_total) === 1) totals.set(r.g, cell);
    else {
      const m = series.get(r.g) ?? new Map<number, Cell>();
      series.set(r.g, m);
      m.set(Number(r.b), cell);
    }
  }
  if (opts.hist && hasHist(plan.dim)) {
    // The arrays themselves, merged here: unnesting ~300 bins per row into (bucket, bin) groups
    // in SQL cost ~50x more than adding them up here, and their binary form (array_send) decodes
    // ~10x faster than their text.
    const bucketLevel = !opts.byValue;
    const { rows: hists } = await db.raw<{ rows: HistRow[] }>(
      `select ${bucketLevel ? bucketMs(q) : 'null'} as b, ${g} as g, array_send(latency_hist) as latency_hist,
              array_send(ttft_hist) as ttft_hist
         from request_rollups_live where ${s.sql} and (latency_hist is not null or ttft_hist is not null)`,
      [...(bucketLevel ? [q.tz, q.tz] : []), ...s.args],
    );
    for (const r of hists) {
      const targets = [totals.get(r.g), bucketLevel ? series.get(r.g)?.get(Number(r.b)) : undefined];
      const [latency, ttft] = [decodeIntArray(r.latency_hist), decodeIntArray(r.ttft_hist)];
      for (const cell of targets) {
        if (!cell) continue;
        if (latency) cell.latency = mergeHist(cell.latency ?? [], latency);
        if (ttft) cell.ttft = mergeHist(cell.ttft ?? [], ttft);
      }
    }
  }
  return { totals, series };
}

export const cellMeasures = (
  c: Cell,
  uniques: { users: number | null; sessions: number | null },
  exact?: { latency: (number | null)[]; ttft: (number | null)[] },
): Measures =>
  toMeasures(c.sums, exact ?? (c.latency || c.ttft ? percentilesOfHists(c.latency, c.ttft) : noPercentiles()), uniques);

export async function rollupTotalsAndSeries(db: Knex, q: StatsQuery, plan: RollupPlan) {
  const { totals, series } = await cells(db, q, plan, { hist: true });
  return { totals: totals.get('') ?? emptyCell(), series: series.get('') ?? new Map<number, Cell>() };
}

const ORDER_COL = { requests: 'requests', cost_usd: 'cost_usd', total_tokens: 'total_tokens', errors: 'errors' };

/** The plan's values by the order measure over the range, the first top + 1 (the raw rows rank alike). */
export async function rankValues(db: Knex, q: StatsQuery, plan: RollupPlan): Promise<string[]> {
  // End users over days rank from the daily per-user rollups (a 30th of the hourly rows).
  if (plan.dim === 'user' && plan.value === null) return rankUsers(db, q, q.top + 1);
  const s = scope(q, plan);
  const order = `order by sum(${ORDER_COL[q.orderBy]}) desc, value limit ?`;
  const { rows } = await db.raw<{ rows: { k: string }[] }>(
    `select value as k from request_rollups_live where ${s.sql} group by value ${order}`,
    [...s.args, q.top + 1],
  );
  return rows.map((r) => r.k);
}

export async function rollupBreakdown(
  db: Knex,
  q: StatsQuery,
  plan: RollupPlan,
  total: { totals: Cell; series: Map<number, Cell> },
) {
  const ranked = await rankValues(db, q, plan);
  const keys = ranked.slice(0, q.top);
  const { totals, series } = await cells(db, q, plan, { byValue: keys, hist: true });
  const items = keys.map((k) => ({
    key: k,
    cell: totals.get(k) ?? emptyCell(),
    series: series.get(k) ?? new Map<number, Cell>(),
  }));
  // Calls without a value for the dimension (no end user, no such property) are "other" too, as in the raw rows.
  const inItems = items.reduce((n, i) => n + i.cell.sums.requests, 0);
  if (ranked.length <= q.top && total.totals.sums.requests <= inItems) return { items, other: null };
  // The rest: the whole (dim '' rows) less the top groups, bucket by bucket; histograms too.
  const hist = hasHist(plan.dim);
  const other: Cell = subtract(
    total.totals,
    items.map((i) => i.cell),
    hist,
  );
  const otherSeries = new Map<number, Cell>();
  for (const [b, c] of total.series)
    otherSeries.set(
      b,
      subtract(
        c,
        items.map((i) => i.series.get(b) ?? emptyCell()),
        false,
      ),
    );
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
  return {
    sums,
    latency: minus(
      whole.latency,
      parts.map((p) => p.latency),
    ),
    ttft: minus(
      whole.ttft,
      parts.map((p) => p.ttft),
    ),
  };
}
