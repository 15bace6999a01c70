import type { Knex } from 'knex';

/** SQL of prompt experiments. The record is the row as pg returns it (variants is jsonb). */
export interface PromptExperimentRecord {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  dataset_id: string;
  dataset_version: Date;
  variants: { label: string; subject: unknown }[];
  experiment_ids: string[];
  evaluator_ids: string[];
  created_by: string | null;
  created_at: Date;
}

const rows = (db: Knex) => db<PromptExperimentRecord>('prompt_experiments');

export async function insertPromptExperiment(db: Knex, row: Record<string, unknown>): Promise<PromptExperimentRecord> {
  const [created] = await db('prompt_experiments').insert(row).returning('*');
  return created;
}

export const findPromptExperiment = (db: Knex, projectIds: string[], id: string) =>
  rows(db).whereIn('project_id', projectIds).andWhere({ id }).first();

export const listPromptExperimentRows = (db: Knex, projectIds: string[]) =>
  rows(db)
    .whereIn('project_id', projectIds)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(100);
