import type { Knex } from 'knex';

export type ExportRow = Record<string, any> & { id: string; org_id: string; status: string; resource: string; format: string; columns: string[]; filter: Record<string, unknown>; project_ids: string[] };

export const exportById = (db: Knex, id: string) => db('exports').where({ id }).first() as Promise<ExportRow | undefined>;

export const findExport = (db: Knex, orgId: string, projectIds: string[], id: string) =>
  db('exports').where({ id, org_id: orgId }).whereRaw('project_ids <@ ?::uuid[]', [projectIds]).first() as Promise<ExportRow | undefined>;

/** Newest first: the exports whose projects are all in the caller's scope. */
export const listExports = (db: Knex, orgId: string, projectIds: string[], limit: number) =>
  db('exports').where({ org_id: orgId }).whereRaw('project_ids <@ ?::uuid[]', [projectIds]).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit) as Promise<ExportRow[]>;

export const setExport = (db: Knex, id: string, patch: Record<string, unknown>) => db('exports').where({ id }).update(patch);

/** Moves an export between states only from the ones given (a cancelled export stays cancelled). */
export const transition = async (db: Knex, id: string, from: string[], patch: Record<string, unknown>) => (await db('exports').where({ id }).whereIn('status', from).update(patch)) > 0;

/** Completed exports whose files are past their expiry, oldest first. */
export const expiredExports = (db: Knex, now: Date, limit: number) =>
  db('exports').where({ status: 'completed' }).where('expires_at', '<=', now).orderBy('expires_at').limit(limit).select('id') as Promise<{ id: string }[]>;
