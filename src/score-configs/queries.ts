import type { Knex } from 'knex';

/** SQL of score configs. */
export const findConfig = (db: Knex, projectIds: string[], id: string) => db('score_configs').whereIn('project_id', projectIds).andWhere({ id }).first();

export function listConfigs(db: Knex, projectIds: string[], f: { dataType?: string | undefined; includeArchived?: boolean | undefined }) {
  const q = db('score_configs').whereIn('project_id', projectIds);
  if (f.dataType) q.andWhere('data_type', f.dataType);
  if (!f.includeArchived) q.andWhere('is_archived', false);
  return q.orderBy([{ column: 'name' }, { column: 'created_at' }]).limit(1000);
}

/** Inserts a config; undefined when a live config of that name exists in the project. */
export async function insertConfig(db: Knex, row: Record<string, unknown>) {
  const [created] = await db('score_configs').insert(row).onConflict(db.raw('(project_id, name) where not is_archived')).ignore().returning('*');
  return created as Record<string, unknown> | undefined;
}

export async function updateConfig(db: Knex, id: string, patch: Record<string, unknown>) {
  const [row] = await db('score_configs').where({ id }).update({ ...patch, updated_at: db.fn.now() }).returning('*');
  return row as Record<string, unknown>;
}

export const configInUse = async (db: Knex, id: string) => Boolean(await db('scores').where({ config_id: id }).first('id'));
export const deleteConfig = (db: Knex, id: string) => db('score_configs').where({ id }).del();
