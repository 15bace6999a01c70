import type { Knex } from 'knex';
import type { ExportView } from './schemas';

/** An exports row as pg returns it (bigint parses as a number, src/db/knex.ts). */
export interface ExportRow {
  id: string;
  org_id: string;
  project_ids: string[];
  resource: ExportView['resource'];
  format: ExportView['format'];
  filter: Record<string, unknown>;
  columns: string[];
  include_bodies: boolean;
  status: ExportView['status'];
  rows_written: number;
  estimated_total: number | null;
  parts: number;
  bytes: number | null;
  storage_key: string | null;
  workflow_id: string;
  link_key: string;
  error: string | null;
  created_by: string | null;
  created_by_user: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date | null;
}

const exportRows = (db: Knex) => db<ExportRow>('exports');

export const exportById = (db: Knex, id: string) => exportRows(db).where({ id }).first();

export const findExport = (db: Knex, orgId: string, projectIds: string[], id: string) =>
  exportRows(db).where({ id, org_id: orgId }).whereRaw('project_ids <@ ?::uuid[]', [projectIds]).first();

/** Newest first: the exports whose projects are all in the caller's scope. */
export const listExports = (db: Knex, orgId: string, projectIds: string[], limit: number) =>
  exportRows(db)
    .where({ org_id: orgId })
    .whereRaw('project_ids <@ ?::uuid[]', [projectIds])
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);

export const setExport = (db: Knex, id: string, patch: Record<string, unknown>) =>
  db('exports').where({ id }).update(patch);

/** Moves an export between states only from the ones given (a cancelled export stays cancelled). */
export const transition = async (db: Knex, id: string, from: string[], patch: Record<string, unknown>) =>
  (await db('exports').where({ id }).whereIn('status', from).update(patch)) > 0;

/** Completed exports whose files are past their expiry, oldest first. */
export const expiredExports = (db: Knex, now: Date, limit: number) =>
  db('exports')
    .where({ status: 'completed' })
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .select('id') as Promise<{ id: string }[]>;
