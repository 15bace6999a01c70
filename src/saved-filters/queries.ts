import type { Knex } from 'knex';
import type { View } from './schemas';

/** SQL of saved filters. The record is the row as pg returns it. */
export interface SavedFilterRecord {
  id: string;
  org_id: string;
  project_id: string;
  owner_id: string | null;
  name: string;
  view: View;
  filter: Record<string, unknown>;
  columns: string[] | null;
  sort: string | null;
  visibility: 'private' | 'project';
  created_at: Date;
  updated_at: Date;
}

/** The filters this caller may see: the project's, and their own private ones (`me` null: a key). */
export function visibleFilters(db: Knex, projectIds: string[], me: string | null) {
  const q = db<SavedFilterRecord>('saved_filters').whereIn('project_id', projectIds);
  return q.andWhere((w) =>
    me ? w.where('visibility', 'project').orWhere('owner_id', me) : w.where('visibility', 'project'),
  );
}

export async function insertFilter(db: Knex, row: Record<string, unknown>): Promise<SavedFilterRecord> {
  const [created] = await db('saved_filters').insert(row).returning('*');
  return created;
}

export async function updateFilter(db: Knex, id: string, patch: Record<string, unknown>): Promise<SavedFilterRecord> {
  const [row] = await db('saved_filters')
    .where({ id })
    .update({ ...patch, updated_at: db.fn.now() })
    .returning('*');
  return row;
}

export const deleteFilter = (db: Knex, id: string) => db('saved_filters').where({ id }).del();
