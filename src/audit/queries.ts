import type { Knex } from 'knex';
import { isoSql } from '../http/pagination';

export interface AuditRowInput {
  org_id: string;
  actor_type: 'user' | 'api_key' | 'system';
  actor_id: string | null;
  actor_label: string;
  action: string;
  resource_type: string;
  resource_id: string | null;
  before: string | null;
  after: string | null;
}

export const insertAuditRow = (db: Knex | Knex.Transaction, row: AuditRowInput) => db('audit_logs').insert(row);

export interface AuditFilter {
  action?: string;
  resource_type?: string;
  resource_id?: string;
  actor_id?: string;
  /** ISO 8601 with offset, range-checked by the route contract. */
  from?: string;
  to?: string;
  /** The (created_at, id) of the last row of the previous page. */
  after?: [string, string];
}

/** Newest first; `cursor_at` keeps PostgreSQL's microseconds for the next cursor. */
export function selectAuditLogs(db: Knex, orgId: string, f: AuditFilter, limit: number) {
  const query = db('audit_logs')
    .select(
      'id',
      'actor_type',
      'actor_id',
      'actor_label',
      'action',
      'resource_type',
      'resource_id',
      'before',
      'after',
      'created_at',
      db.raw(`${isoSql('created_at')} as cursor_at`),
    )
    .where({ org_id: orgId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
  // `resource.*` matches every action of a resource.
  if (f.action)
    query.where(
      f.action.endsWith('.*') ? db.raw('action like ?', [f.action.slice(0, -1) + '%']) : { action: f.action },
    );
  if (f.resource_type) query.where({ resource_type: f.resource_type });
  if (f.resource_id) query.where({ resource_id: f.resource_id });
  if (f.actor_id) query.where({ actor_id: f.actor_id });
  if (f.from) query.where('created_at', '>=', f.from);
  if (f.to) query.where('created_at', '<', f.to);
  if (f.after) query.whereRaw('(created_at, id) < (?::timestamptz, ?::uuid)', f.after);
  return query as Promise<(Record<string, unknown> & { id: string; cursor_at: string })[]>;
}
