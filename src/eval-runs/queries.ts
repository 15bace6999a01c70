import type { Knex } from 'knex';
import { requestWhere } from '../filters/request-filter';
import { requestFilterOf, type StoredFilter } from '../filters/stored';
import type { RunTarget, RunView } from './schemas';

/** An eval_runs row as pg returns it (target is jsonb). */
export interface RunRecord {
  id: string;
  org_id: string;
  project_id: string;
  evaluator_ids: string[];
  target: RunTarget;
  status: RunView['status'];
  online: boolean;
  total: number | null;
  workflow_id: string;
  error: string | null;
  created_by: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}
/** An eval_run_items row (numeric judge_cost_usd parses as a number, src/db/knex.ts). */
export interface RunItemRecord {
  run_id: string;
  evaluator_id: string;
  target_id: string;
  status: 'pending' | 'completed' | 'error' | 'delayed';
  score_id: string | null;
  value: number | null;
  string_value: string | null;
  error: string | null;
  judge_cost_usd: number | null;
  judge_request_id: string | null;
  updated_at: Date;
}

const runs = (db: Knex) => db<RunRecord>('eval_runs');

/** SQL of eval runs and their items. */
export const findRun = (db: Knex, projectIds: string[], id: string) =>
  runs(db).whereIn('project_id', projectIds).andWhere({ id }).first();
export const runById = (db: Knex, id: string) => runs(db).where({ id }).first();
export const listRuns = (db: Knex, projectIds: string[], limit: number) =>
  runs(db)
    .whereIn('project_id', projectIds)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
export const setRun = (db: Knex, id: string, patch: Record<string, unknown>) =>
  db('eval_runs').where({ id }).update(patch);

/** A run in these states takes no more item or score writes. */
export const isClosed = (status: string) => status === 'cancelled' || status === 'failed';

/**
 * Runs `write` in a transaction holding the run's row FOR SHARE, unless the run is closed (then
 * nothing is written: false). Cancelling updates that row, so it waits for the writes in flight
 * and every later write finds the run cancelled: once a run reads cancelled, it stays as it is.
 */
export function whileOpen(
  db: Knex,
  runId: string,
  write: (trx: Knex.Transaction) => Promise<unknown>,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const run = await trx('eval_runs').where({ id: runId }).forShare().first('status');
    if (!run || isClosed(run.status)) return false;
    await write(trx);
    return true;
  });
}

/** Sets `patch` on the run if it is still pending or running (the row lock orders it with cancel). */
export const setOpenRun = async (db: Knex, id: string, patch: Record<string, unknown>) =>
  (await db('eval_runs').where({ id }).whereIn('status', ['pending', 'running']).update(patch)) > 0;

/** The run's targets: the newest matching requests or traces of the range, at most `limit`. */
export async function targetIds(db: Knex, projectId: string, t: RunTarget): Promise<string[]> {
  if (t.kind === 'requests') {
    const w = requestWhere([projectId], {
      ...requestFilterOf((t.filter ?? {}) as StoredFilter),
      from: t.from,
      to: t.to,
    });
    // The gateway's own judge calls are not targets (they would score themselves).
    const { rows } = await db.raw(
      `select r.id from requests r
        where ${w.sql} and not jsonb_exists(coalesce(r.properties, '{}'::jsonb), 'eval.target')
        order by r.created_at desc, r.id desc limit ?`,
      [...w.args, t.limit],
    );
    return rows.map((r: { id: string }) => r.id);
  }
  const q = db('traces')
    .where({ project_id: projectId })
    .andWhere('start_time', '>=', t.from)
    .andWhere('start_time', '<', t.to);
  if (t.filter?.name) q.andWhere('name', t.filter.name);
  if (t.filter?.user_id) q.andWhere('user_id', t.filter.user_id);
  if (t.filter?.session_id) q.andWhere('session_id', t.filter.session_id);
  return (
    await q
      .orderBy([
        { column: 'start_time', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(t.limit)
      .select('id')
  ).map((r) => r.id as string);
}

/** One pending item per (target, evaluator); a replay adds nothing. */
export async function insertItems(db: Knex, runId: string, evaluatorIds: string[], targets: string[]): Promise<void> {
  if (!targets.length) return;
  await db.raw(
    `insert into eval_run_items (run_id, evaluator_id, target_id)
     select ?, e, t from unnest(?::uuid[]) e cross join unnest(?::text[]) t on conflict do nothing`,
    [runId, evaluatorIds, targets],
  );
}

/** Targets with unfinished items after `after`, in target order. */
export async function pendingTargets(db: Knex, runId: string, after: string | null, limit: number): Promise<string[]> {
  const q = db('eval_run_items')
    .where({ run_id: runId })
    .whereIn('status', ['pending', 'delayed'])
    .distinct('target_id')
    .orderBy('target_id')
    .limit(limit);
  if (after !== null) q.andWhere('target_id', '>', after);
  return (await q).map((r) => r.target_id as string);
}

export const itemsOf = (db: Knex, runId: string, targetId: string) =>
  db('eval_run_items').where({ run_id: runId, target_id: targetId });
export const setItem = (
  db: Knex,
  runId: string,
  evaluatorId: string,
  targetId: string,
  patch: Record<string, unknown>,
) =>
  db('eval_run_items')
    .where({ run_id: runId, evaluator_id: evaluatorId, target_id: targetId })
    .update({ ...patch, updated_at: db.fn.now() });

/** Item counts by status, per-evaluator averages and the judge cost. */
export async function runStats(db: Knex, runId: string) {
  const [counts, scores, cost] = await Promise.all([
    db('eval_run_items').where({ run_id: runId }).select('status').count('* as n').groupBy('status'),
    db('eval_run_items')
      .where({ run_id: runId, status: 'completed' })
      .select('evaluator_id')
      .count('* as n')
      .avg('value as avg')
      .groupBy('evaluator_id')
      .orderBy('evaluator_id'),
    db('eval_run_items').where({ run_id: runId }).sum('judge_cost_usd as c').first(),
  ]);
  return {
    counts: counts as { status: string; n: string }[],
    scores: scores as { evaluator_id: string; n: string; avg: string | null }[],
    cost: Number((cost as { c: unknown } | undefined)?.c ?? 0),
  };
}

export function listItems(
  db: Knex,
  runId: string,
  f: { status?: string | undefined; after: [string, string] | null; limit: number },
) {
  const q = db<RunItemRecord>('eval_run_items').where({ run_id: runId });
  if (f.status) q.andWhere('status', f.status);
  if (f.after) q.andWhereRaw('(target_id, evaluator_id) > (?, ?::uuid)', f.after);
  return q.orderBy([{ column: 'target_id' }, { column: 'evaluator_id' }]).limit(f.limit + 1);
}
