import type { Knex } from 'knex';
import { isoSql } from '../http/pagination';
import type { RequestFilters } from './schemas';

const LIST_COLUMNS = [
  'id',
  'project_id',
  'api_key_id',
  'provider',
  'model',
  'method',
  'path',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cost_usd',
  'latency_ms',
  'ttfb_ms',
  'status_code',
  'trace_id',
  'span_id',
  'user_id',
  'session_id',
  'log_mode',
  'cache_hit',
  'streamed',
  'tokens_estimated',
  'self_hosted',
  'prompt_version_id',
  'error',
  'created_at',
];
const BODY_COLUMNS = ['request_body', 'response_body'];

/** Newest first; `after` is the (created_at, id) key of the previous page's last row, already checked. */
export function listRequestRows(db: Knex, projectIds: string[], f: RequestFilters, after: [string, string] | null) {
  const cols = f.include_bodies ? [...LIST_COLUMNS, ...BODY_COLUMNS] : LIST_COLUMNS;
  const query = db('requests')
    // Microsecond-exact created_at for the cursor: JS dates keep only milliseconds.
    .select([...cols, db.raw(`${isoSql('created_at')} as cursor_t`)])
    .whereIn('project_id', projectIds)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit + 1);
  if (f.from) query.where('created_at', '>=', f.from);
  if (f.to) query.where('created_at', '<', f.to);
  if (f.provider) query.where('provider', f.provider);
  if (f.model) query.where('model', f.model);
  if (f.status) {
    if (f.status.endsWith('xx')) {
      const base = Number(f.status[0]) * 100;
      query.where('status_code', '>=', base).andWhere('status_code', '<', base + 100);
    } else query.where('status_code', Number(f.status));
  }
  if (f.user_id) query.where('user_id', f.user_id);
  if (f.session_id) query.where('session_id', f.session_id);
  if (f.trace_id) query.where('trace_id', f.trace_id);
  if (f.prompt_version_id) query.where('prompt_version_id', f.prompt_version_id);
  if (f.cache_hit !== undefined) query.where('cache_hit', f.cache_hit);
  if (after) query.whereRaw('(created_at, id) < (?::timestamptz, ?::uuid)', after);
  return query as Promise<Record<string, unknown>[]>;
}

export const findRequestRow = (db: Knex, projectIds: string[], id: string) =>
  db('requests')
    .select([...LIST_COLUMNS, ...BODY_COLUMNS])
    .where({ id })
    .whereIn('project_id', projectIds)
    .first() as Promise<Record<string, unknown> | undefined>;
