import type { Knex } from 'knex';
import { badRequest } from '../http/errors';

export interface AuditQuery {
  action?: string;
  resource_type?: string;
  resource_id?: string;
  actor_id?: string;
  from?: Date;
  to?: Date;
  limit: number;
  cursor?: string;
}

// Cursor = position of the last row returned: (created_at, id), newest first. The time is kept at
// PostgreSQL's microsecond precision (a JS Date would truncate to ms and skip rows).
const encodeCursor = (createdAtText: string, id: string) => Buffer.from(JSON.stringify([createdAtText, id])).toString('base64url');
function decodeCursor(cursor: string): [string, string] {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && typeof v[0] === 'string' && !Number.isNaN(Date.parse(v[0])) && typeof v[1] === 'string' && /^[0-9a-f-]{36}$/i.test(v[1])) {
      return [v[0], v[1]];
    }
  } catch {
    /* fall through */
  }
  throw badRequest('Invalid query.cursor: use next_cursor from a previous page', 'validation_error');
}

export async function listAuditLogs(db: Knex, orgId: string, q: AuditQuery) {
  const query = db('audit_logs')
    .select('id', 'actor_type', 'actor_id', 'actor_label', 'action', 'resource_type', 'resource_id', 'before', 'after', 'created_at', db.raw(`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at`))
    .where({ org_id: orgId })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(q.limit + 1);
  if (q.action) query.where(q.action.endsWith('.*') ? db.raw('action like ?', [q.action.slice(0, -1) + '%']) : { action: q.action });
  if (q.resource_type) query.where({ resource_type: q.resource_type });
  if (q.resource_id) query.where({ resource_id: q.resource_id });
  if (q.actor_id) query.where({ actor_id: q.actor_id });
  if (q.from) query.where('created_at', '>=', q.from);
  if (q.to) query.where('created_at', '<', q.to);
  if (q.cursor) {
    const [at, id] = decodeCursor(q.cursor);
    query.whereRaw('(created_at, id) < (?::timestamptz, ?::uuid)', [at, id]);
  }
  const rows = await query;
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  const last = page[page.length - 1];
  return {
    items: page.map(({ cursor_at: _omit, ...row }) => row),
    next_cursor: more && last ? encodeCursor(last.cursor_at, last.id) : null,
  };
}
