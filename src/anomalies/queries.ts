import type { Knex } from 'knex';
import type { DIMENSIONS, MEASURES } from './detector';

/** SQL of the anomalies feature. */
export interface AnomalyRow {
  org_id: string;
  project_id: string;
  measure: string;
  dimension: string;
  dimension_value: string;
  direction: 'up' | 'down';
  expected_low: number;
  expected_median: number;
  expected_high: number;
  observed: number;
  score: number;
  baseline: Record<string, unknown>;
  window_start: string;
  window_end: string;
  sample_request_ids: string[];
}

/** An anomalies row as pg returns it. */
export interface AnomalyRecord {
  id: string;
  org_id: string;
  project_id: string;
  measure: (typeof MEASURES)[number];
  dimension: (typeof DIMENSIONS)[number];
  dimension_value: string;
  direction: 'up' | 'down';
  expected_low: number;
  expected_median: number;
  expected_high: number;
  observed: number;
  score: number;
  baseline: { points: number; seasonal: boolean; from: string; to: string };
  window_start: Date;
  window_end: Date;
  first_seen: Date;
  last_seen: Date;
  detections: number;
  sample_request_ids: string[];
  status: 'open' | 'acknowledged' | 'resolved';
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  created_at: Date;
}

/** Projects worth judging: traffic in the last day (a project gone silent is judged too). */
export async function activeProjects(db: Knex, since: string): Promise<{ id: string; org_id: string }[]> {
  const { rows } = await db.raw(
    `select p.id, p.org_id from projects p
      where exists (select 1 from request_rollups_live r where r.project_id = p.id and r.dim = '' and r.bucket >= ?)`,
    [since],
  );
  return rows;
}

/** Inserts a new anomaly, or updates the open/acknowledged one of the same key (status kept). */
export async function upsertAnomaly(
  db: Knex,
  a: AnomalyRow,
  seenAt: string,
): Promise<{ id: string; created: boolean }> {
  const { rows } = await db.raw(
    `insert into anomalies (org_id, project_id, measure, dimension, dimension_value, direction,
                            expected_low, expected_median, expected_high,
                            observed, score, baseline, window_start, window_end, first_seen, last_seen,
                            sample_request_ids)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?::uuid[])
     on conflict (project_id, measure, dimension, dimension_value) where status <> 'resolved' do update set
       direction = excluded.direction, expected_low = excluded.expected_low, expected_median = excluded.expected_median,
       expected_high = excluded.expected_high, observed = excluded.observed, score = excluded.score,
       baseline = excluded.baseline,
       window_start = excluded.window_start, window_end = excluded.window_end, last_seen = excluded.last_seen,
       sample_request_ids = excluded.sample_request_ids, detections = anomalies.detections + 1
     returning id, (xmax = 0) as created`,
    [
      a.org_id,
      a.project_id,
      a.measure,
      a.dimension,
      a.dimension_value,
      a.direction,
      a.expected_low,
      a.expected_median,
      a.expected_high,
      a.observed,
      a.score,
      JSON.stringify(a.baseline),
      a.window_start,
      a.window_end,
      seenAt,
      seenAt,
      a.sample_request_ids,
    ],
  );
  return rows[0];
}

/** Anomalies not detected again since `before` resolve themselves (a silent project's too). */
export async function resolveQuiet(db: Knex, before: string, at: string): Promise<number> {
  const n = await db('anomalies')
    .whereIn('status', ['open', 'acknowledged'])
    .andWhere('last_seen', '<', before)
    .update({ status: 'resolved', resolved_at: at, resolved_by: 'system' });
  return n;
}

export interface ListFilter {
  projectIds: string[];
  status?: string | undefined;
  measure?: string | undefined;
  dimension?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  after: [string, string] | null;
  limit: number;
}

export async function listAnomalies(db: Knex, f: ListFilter) {
  const q = db<AnomalyRecord>('anomalies').whereIn('project_id', f.projectIds);
  if (f.status) q.andWhere('status', f.status);
  if (f.measure) q.andWhere('measure', f.measure);
  if (f.dimension) q.andWhere('dimension', f.dimension);
  if (f.from) q.andWhere('last_seen', '>=', f.from);
  if (f.to) q.andWhere('last_seen', '<', f.to);
  if (f.after) q.andWhereRaw('(last_seen, id) < (?::timestamptz, ?::uuid)', f.after);
  return q
    .orderBy([
      { column: 'last_seen', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit + 1);
}

export const findAnomaly = (db: Knex, projectIds: string[], id: string) =>
  db<AnomalyRecord>('anomalies').whereIn('project_id', projectIds).andWhere({ id }).first();

export async function setStatus(
  db: Knex,
  id: string,
  status: 'acknowledged' | 'resolved',
  by: string,
  at: string,
): Promise<AnomalyRecord> {
  const patch =
    status === 'acknowledged'
      ? { status, acknowledged_at: at, acknowledged_by: by }
      : { status, resolved_at: at, resolved_by: by };
  const [row] = await db('anomalies').where({ id }).update(patch).returning('*');
  return row;
}
