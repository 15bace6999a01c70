import type { Knex } from 'knex';
import type { CreateShareInput } from './schemas';

/** SQL of shares. The record is the row as pg returns it. */
export interface ShareRecord {
  id: string;
  org_id: string;
  project_id: string;
  resource_type: CreateShareInput['resource_type'];
  resource_id: string;
  token_hash: string;
  token_hint: string;
  expires_at: Date | null;
  redact_bodies: boolean;
  view_count: number;
  last_viewed_at: Date | null;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const shares = (db: Knex) => db<ShareRecord>('shares');

export async function insertShare(db: Knex, row: Record<string, unknown>): Promise<ShareRecord> {
  const [created] = await db('shares').insert(row).returning('*');
  return created;
}

export const listShareRows = (db: Knex, projectIds: string[]) =>
  shares(db).whereIn('project_id', projectIds).orderBy('created_at', 'desc').limit(500);

export const findShare = (db: Knex, projectIds: string[], id: string) =>
  shares(db).whereIn('project_id', projectIds).andWhere({ id }).first();

/** Revokes a share; an already revoked one keeps its first revocation time. */
export async function revokeShareRow(db: Knex, row: ShareRecord): Promise<ShareRecord> {
  const [after] = await db('shares')
    .where({ id: row.id })
    .update({ revoked_at: row.revoked_at ?? db.fn.now() })
    .returning('*');
  return after;
}

/** The share of a token hash when it is live: not revoked, not expired. */
export const liveShare = (db: Knex, tokenHash: string) =>
  shares(db)
    .where({ token_hash: tokenHash })
    .whereNull('revoked_at')
    .andWhere((w) => w.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()))
    .first();

export const countView = (db: Knex, id: string) =>
  db('shares')
    .where({ id })
    .update({ view_count: db.raw('view_count + 1'), last_viewed_at: db.fn.now() });
