import type { Knex } from 'knex';
import { percentiles } from './histogram';

/**
 * What the anomaly detector compares (src/anomalies/): one project's last window from its raw
 * rows (an hour of calls, through the (project, created_at) index) and the hourly rollups of the
 * trailing days, for the project, its models and its busiest end users of the window.
 */
export type AnomalyDimension = 'project' | 'model' | 'user';
export interface WindowCell {
  dimension: AnomalyDimension;
  value: string;
  requests: number;
  errors: number;
  cost: number;
  tokens: number;
  p95: number | null;
}
export interface BaselineHour {
  dimension: AnomalyDimension;
  value: string;
  bucket: number;
  requests: number;
  errors: number;
  cost: number;
  tokens: number;
  /** p95 latency from the hour's histogram (project and model rows keep one; users do not). */
  p95: number | null;
}
export interface AnomalyInputs {
  window: WindowCell[];
  baseline: BaselineHour[];
}

/** The busiest end users of the window that are judged (each costs a baseline read). */
const MAX_USERS = 50;
const DIM: Record<string, AnomalyDimension> = { '': 'project', model: 'model', user: 'user' };

/** A window cell as pg returns it (dim '' is the project): counts and sums are numbers, p95 a float8. */
interface WindowRow {
  dim: string;
  value: string;
  requests: number;
  errors: number;
  cost: number;
  tokens: number;
  p95: number | null;
}
/** A baseline hour (b: epoch ms) with its rollup rows' latency histograms (integer[][]; null when none keeps one). */
interface BaselineRow {
  dim: string;
  value: string;
  b: number;
  requests: number;
  errors: number;
  cost: number;
  tokens: number;
  hists: number[][] | null;
}

export async function anomalyInputs(
  db: Knex,
  projectId: string,
  windowStart: string,
  windowEnd: string,
  baselineStart: string,
): Promise<AnomalyInputs> {
  const { rows: win } = await db.raw<{ rows: WindowRow[] }>(
    `select d.dim, d.value, count(*) as requests, count(*) filter (where r.status_code >= 400) as errors,
            coalesce(sum(r.cost_usd), 0)::float8 as cost, coalesce(sum(r.total_tokens), 0) as tokens,
            percentile_cont(0.95) within group (order by r.latency_ms) as p95
       from requests r cross join lateral (values ('', ''), ('model', r.model), ('user', r.user_id)) d(dim, value)
      where r.project_id = ? and r.created_at >= ? and r.created_at < ?
        and d.value is not null and (d.dim = '' or d.value <> '')
      group by 1, 2`,
    [projectId, windowStart, windowEnd],
  );
  const window: WindowCell[] = win.map((r) => ({
    dimension: DIM[r.dim]!,
    value: r.value,
    requests: Number(r.requests),
    errors: Number(r.errors),
    cost: Number(r.cost),
    tokens: Number(r.tokens),
    p95: r.p95 === null ? null : Number(r.p95),
  }));
  const users = window
    .filter((c) => c.dimension === 'user')
    .sort((a, b) => b.requests - a.requests || (a.value < b.value ? -1 : 1))
    .slice(0, MAX_USERS);
  const kept = window.filter((c) => c.dimension !== 'user').concat(users);
  // Models are read whole (a model that went silent is news); users only for the busiest of the window.
  const { rows: base } = await db.raw<{ rows: BaselineRow[] }>(
    `select dim, value, (extract(epoch from bucket) * 1000)::bigint as b,
            sum(requests) as requests, sum(errors) as errors,
            sum(cost_usd)::float8 as cost, sum(total_tokens) as tokens,
            array_agg(latency_hist) filter (where latency_hist is not null) as hists
       from request_rollups_live
      where project_id = ? and bucket >= ? and bucket < ?
        and (dim in ('', 'model') or (dim = 'user' and value = any(?::text[])))
      group by 1, 2, 3`,
    [projectId, baselineStart, windowStart, users.map((u) => u.value)],
  );
  const baseline: BaselineHour[] = base.map((r) => {
    const hists = r.hists ?? [];
    const merged: number[] = [];
    for (const h of hists) h.forEach((c, i) => (merged[i] = (merged[i] ?? 0) + c));
    return {
      dimension: DIM[r.dim]!,
      value: r.value,
      bucket: Number(r.b),
      requests: Number(r.requests),
      errors: Number(r.errors),
      cost: Number(r.cost),
      tokens: Number(r.tokens),
      p95: merged.length
        ? percentiles(
            merged.map((c) => c ?? 0),
            [0.95],
          )[0]!
        : null,
    };
  });
  return { window: kept, baseline };
}

const SAMPLE_ORDER: Record<string, string> = {
  cost: 'r.cost_usd desc nulls last',
  requests: 'r.created_at desc',
  error_rate: 'r.created_at desc',
  latency_p95: 'r.latency_ms desc',
  tokens_per_request: 'r.total_tokens desc',
};

/** The calls of the window that contributed most to an anomaly (at most 5). */
export async function anomalySamples(
  db: Knex,
  projectId: string,
  windowStart: string,
  windowEnd: string,
  measure: string,
  dimension: AnomalyDimension,
  value: string,
): Promise<string[]> {
  const col = { project: null, model: 'r.model', user: 'r.user_id' }[dimension];
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `select r.id from requests r where r.project_id = ? and r.created_at >= ? and r.created_at < ?
        ${col ? `and ${col} = ?` : ''} ${measure === 'error_rate' ? 'and r.status_code >= 400' : ''}
      order by ${SAMPLE_ORDER[measure]}, r.id limit 5`,
    [projectId, windowStart, windowEnd, ...(col ? [value] : [])],
  );
  return rows.map((r) => r.id);
}
