import type { Knex } from 'knex';

import type { DataType } from './schemas';

/** SQL of score configs. The record is the row as pg returns it. */
export interface ConfigRecord {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  data_type: DataType;
  min: number | null;
  max: number | null;
  categories: { label: string; value: number }[] | null;
  description: string | null;
  is_archived: boolean;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}
export const findConfig = (db: Knex, projectIds: string[], id: string) =>
  db<ConfigRecord>('score_configs').whereIn('project_id', projectIds).andWhere({ id }).first();

export function listConfigs(
  db: Knex,
  projectIds: string[],
  f: { dataType?: string | undefined; includeArchived?: boolean | undefined },
) {
  const q = db<ConfigRecord>('score_configs').whereIn('project_id', projectIds);
  if (f.dataType) q.andWhere('data_type', f.dataType);
  if (!f.includeArchived) q.andWhere('is_archived', false);
  return q.orderBy([{ column: 'name' }, { column: 'created_at' }]).limit(1000);
}

/** Inserts a config; undefined when a live config of that name exists in the project. */
export async function insertConfig(db: Knex, row: Record<string, unknown>): Promise<ConfigRecord | undefined> {
  const [created] = await db('score_configs')
    .insert(row)
    .onConflict(db.raw('(project_id, name) where not is_archived'))
    .ignore()
    .returning('*');
  return created;
}

export async function updateConfig(db: Knex, id: string, patch: Record<string, unknown>): Promise<ConfigRecord> {
  const [row] = await db('score_configs')
    .where({ id })
    .update({ ...patch, updated_at: db.fn.now() })
    .returning('*');
  return row;
}

export const configInUse = async (db: Knex, id: string) =>
  Boolean(await db('scores').where({ config_id: id }).first('id'));
export const deleteConfig = (db: Knex, id: string) => db('score_configs').where({ id }).del();
