import type { Knex } from 'knex';
import type { EvaluatorView } from './schemas';

/** An evaluators row as pg returns it (config and online are jsonb). */
export interface EvaluatorRecord {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  type: EvaluatorView['type'];
  config: Record<string, unknown>;
  score_config_id: string | null;
  description: string | null;
  online: Record<string, unknown> | null;
  online_watermark: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}
/** With the id of its rolling online run (ONLINE_RUN), as the reads select it. */
export interface EvaluatorRunRecord extends EvaluatorRecord {
  online_run_id: string | null;
}

/** SQL of evaluators. */
const ONLINE_RUN = (db: Knex) =>
  db.raw(`(select r.id from eval_runs r where r.online and r.evaluator_ids[1] = evaluators.id) as online_run_id`);
export const findEvaluator = (db: Knex, projectIds: string[], id: string): Promise<EvaluatorRunRecord | undefined> =>
  db('evaluators').whereIn('project_id', projectIds).andWhere({ id }).first('evaluators.*', ONLINE_RUN(db));
export const findEvaluators = (db: Knex, projectId: string, ids: string[]) =>
  db<EvaluatorRecord>('evaluators').where({ project_id: projectId }).whereIn('id', ids);

export async function listEvaluators(db: Knex, projectIds: string[], type?: string): Promise<EvaluatorRunRecord[]> {
  const q = db('evaluators').whereIn('project_id', projectIds).select('evaluators.*', ONLINE_RUN(db));
  if (type) q.andWhere({ type });
  return q.orderBy([{ column: 'name' }, { column: 'id' }]).limit(1000);
}

/** Inserts an evaluator; undefined when the project has one of that name. */
export async function insertEvaluator(db: Knex, row: Record<string, unknown>): Promise<EvaluatorRecord | undefined> {
  const [r] = await db('evaluators').insert(row).onConflict(['project_id', 'name']).ignore().returning('*');
  return r;
}

export async function updateEvaluator(db: Knex, id: string, patch: Record<string, unknown>): Promise<EvaluatorRecord> {
  const [r] = await db('evaluators')
    .where({ id })
    .update({ ...patch, updated_at: db.fn.now() })
    .returning('*');
  return r;
}
export const deleteEvaluator = (db: Knex, id: string) => db('evaluators').where({ id }).del();

/** The rolling run of an online evaluator: created the first time, running while online is set. */
export async function syncOnlineRun(db: Knex, e: { id: string; org_id: string; project_id: string; online: unknown }) {
  if (!e.online) {
    await db('eval_runs')
      .where({ online: true })
      .whereRaw('evaluator_ids[1] = ?', [e.id])
      .update({ status: 'completed', finished_at: db.fn.now() });
    return;
  }
  await db.raw(
    `insert into eval_runs
       (org_id, project_id, evaluator_ids, target, status, online, workflow_id, started_at, created_by)
     values (?, ?, array[?::uuid], ?::jsonb, 'running', true, 'online-evaluation', now(), 'online')
     on conflict ((evaluator_ids[1])) where online
     do update set target = excluded.target, status = 'running', finished_at = null`,
    [e.org_id, e.project_id, e.id, JSON.stringify({ ...(e.online as object), online: true })],
  );
}
