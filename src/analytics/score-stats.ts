import type { Knex } from 'knex';
import { z } from 'zod';
import { localBucketSql, type Granularity } from './buckets';
import { jsonOr } from '../db/convert';

/**
 * The `scores` view of /stats, from the scores table: per bucket (and per score name, source or
 * data type) the count, average, min and max of the numeric values and the distribution of the
 * labels (categories, true/false). Scores are few next to requests: no rollups.
 */
export const scoreMeasuresSchema = z.object({
  count: z.number().int().describe('scores'),
  value_avg: z.number().nullable(),
  value_min: z.number().nullable(),
  value_max: z.number().nullable(),
  distribution: z.record(z.string(), z.number().int()).describe('categorical and boolean scores: count per label'),
});
export type ScoreMeasures = z.output<typeof scoreMeasuresSchema>;

export interface ScoreStatsQuery {
  projectIds: string[];
  from: string;
  to: string;
  granularity: Granularity;
  tz: string;
  name?: string | undefined;
  groupBy: 'name' | 'source' | 'data_type' | null;
  top: number;
}

/**
 * A cell of `scan`: count (int8), avg (numeric: a number), min and max (null without numeric values)
 * and the label counts (jsonb, null without labels). Empty measures come from `{}`.
 */
interface ScoreMeasuresRow {
  count?: number;
  avg?: number | null;
  min?: number | null;
  max?: number | null;
  dist?: Record<string, number> | null;
}
/** A row of `scan`: group (null without group_by), bucket (epoch ms; null in a total), total (1) or bucket (0). */
interface ScoreCellRow extends ScoreMeasuresRow {
  g: string | null;
  b: number | null;
  is_total: number;
}
const round = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 1e6) / 1e6);

export function scoreMeasuresOf(r: ScoreMeasuresRow): ScoreMeasures {
  return {
    count: Number(r.count ?? 0),
    value_avg: round(r.avg),
    value_min: round(r.min),
    value_max: round(r.max),
    distribution: jsonOr(r.dist, {}),
  };
}

type Groups = Map<string | null, { measures: ScoreMeasures; series: Map<number, ScoreMeasures> }>;

/** Measures per group (null: no group_by) in total and per bucket. */
async function scan(db: Knex, q: ScoreStatsQuery): Promise<Groups> {
  const w = ['project_id = any(?::uuid[])', 'created_at >= ?', 'created_at < ?'];
  const args: Knex.RawBinding[] = [q.projectIds, q.from, q.to];
  if (q.name) {
    w.push('name = ?');
    args.push(q.name);
  }
  const g = q.groupBy ?? 'null::text';
  const bucket = `(extract(epoch from ${localBucketSql('created_at', q.granularity)} at time zone ?) * 1000)::bigint`;
  // Label counts per (group, bucket) cell, then the measures with the labels folded into one object.
  const { rows } = await db.raw<{ rows: ScoreCellRow[] }>(
    `with x as (select ${bucket} as b, ${g} as g, data_type, value, string_value
                  from scores where ${w.join(' and ')}),
          cells as (select g, b, grouping(b) as is_total, count(*) as count,
                           avg(value) filter (where data_type = 'numeric') as avg,
                           min(value) filter (where data_type = 'numeric') as min,
                           max(value) filter (where data_type = 'numeric') as max
                      from x group by grouping sets ((g, b), (g))),
          labels as (select g, b, grouping(b) as is_total, string_value, count(*) as n
                       from x where data_type <> 'numeric' and string_value is not null
                      group by grouping sets ((g, b, string_value), (g, string_value)))
     select c.*, (select jsonb_object_agg(l.string_value, l.n) from labels l
                   where l.g is not distinct from c.g and l.b is not distinct from c.b
                     and l.is_total = c.is_total) as dist
       from cells c`,
    [q.tz, q.tz, ...args],
  );
  const groups: Groups = new Map();
  for (const r of rows) {
    const key = r.g ?? null;
    const cell = groups.get(key) ?? { measures: scoreMeasuresOf({}), series: new Map() };
    groups.set(key, cell);
    if (Number(r.is_total) === 1) cell.measures = scoreMeasuresOf(r);
    else cell.series.set(Number(r.b), scoreMeasuresOf(r));
  }
  return groups;
}

export async function scoreStats(db: Knex, q: ScoreStatsQuery) {
  const [all, grouped] = await Promise.all([scan(db, { ...q, groupBy: null }), q.groupBy ? scan(db, q) : null]);
  const only = all.get(null);
  const totals = only?.measures ?? scoreMeasuresOf({});
  const series = only?.series ?? new Map<number, ScoreMeasures>();
  if (!grouped) return { totals, series, breakdown: null };
  const ranked = [...grouped.entries()].sort(
    ([ka, a], [kb, b]) => b.measures.count - a.measures.count || (String(ka) < String(kb) ? -1 : 1),
  );
  return {
    totals,
    series,
    breakdown: {
      items: ranked.slice(0, q.top).map(([key, c]) => ({ key: key ?? '', measures: c.measures, series: c.series })),
    },
  };
}
