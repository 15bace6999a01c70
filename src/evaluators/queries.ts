import type { Knex } from 'knex';

/** SQL of evaluators. */
export const findEvaluator = (db: Knex, projectIds: string[], id: string) => db('evaluators').whereIn('project_id', projectIds).andWhere({ id }).first();
export const findEvaluators = (db: Knex, projectId: string, ids: string[]) => db('evaluators').where({ project_id: projectId }).whereIn('id', ids);

export function listEvaluators(db: Knex, projectIds: string[], type?: string) {
  const q = db('evaluators').whereIn('project_id', projectIds);
  if (type) q.andWhere({ type });
  return q.orderBy([{ column: 'name' }, { column: 'id' }]).limit(1000);
}

/** Inserts an evaluator; undefined when the project has one of that name. */
export async function insertEvaluator(db: Knex, row: Record<string, unknown>) {
  const [r] = await db('evaluators').insert(row).onConflict(['project_id', 'name']).ignore().returning('*');
  return r as Record<string, unknown> | undefined;
}

export async function updateEvaluator(db: Knex, id: string, patch: Record<string, unknown>) {
  const [r] = await db('evaluators').where({ id }).update({ ...patch, updated_at: db.fn.now() }).returning('*');
  return r as Record<string, unknown>;
}
export const deleteEvaluator = (db: Knex, id: string) => db('evaluators').where({ id }).del();
