import type { Knex } from 'knex';
import { isoSql } from '../http/pagination';
import { requestWhere } from '../filters/request-filter';
import type { RequestRow } from './row';
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
  'properties',
  'cost_saved_usd',
] as const;
const BODY_COLUMNS = ['request_body', 'response_body'] as const;

/** A request log row as the list selects it, as pg returns it (created_at a Date, properties parsed). */
type RequestRecord = Omit<Pick<RequestRow, (typeof LIST_COLUMNS)[number]>, 'created_at'> & { created_at: Date };
/** A row of the single read: with its bodies. */
export type RequestDetailRecord = RequestRecord & Pick<RequestRow, (typeof BODY_COLUMNS)[number]>;
/** A list row: the bodies only with include_bodies, and the microsecond-exact created_at of the cursor. */
export type RequestListRecord = RequestRecord &
  Partial<Pick<RequestRow, (typeof BODY_COLUMNS)[number]>> & {
    cursor_t: string;
  };

/** Newest first; `after` is the (created_at, id) key of the previous page's last row, already checked. */
export async function listRequestRows(
  db: Knex,
  projectIds: string[],
  f: RequestFilters,
  after: [string, string] | null,
) {
  const cols = (f.include_bodies ? [...LIST_COLUMNS, ...BODY_COLUMNS] : LIST_COLUMNS).map((c) => `r.${c}`);
  if (projectIds.length > 1) return listAcrossProjects(db, projectIds, f, after, cols);
  const w = requestWhere(projectIds, f);
  const { rows } = await db.raw<{ rows: RequestListRecord[] }>(
    // Microsecond-exact created_at for the cursor: JS dates keep only milliseconds.
    `select ${cols.join(', ')}, ${isoSql('r.created_at')} as cursor_t from requests r
      where ${w.sql}${after ? ' and (r.created_at, r.id) < (?::timestamptz, ?::uuid)' : ''}
      order by r.created_at desc, r.id desc limit ?`,
    [...w.args, ...(after ?? []), f.limit + 1],
  );
  return rows;
}

/**
 * Several projects: one ordered index walk per project (a lateral join), merged and cut to the page,
 * instead of `project_id = any(…)`, which gathers every older row of all projects and sorts them.
 */
async function listAcrossProjects(
  db: Knex,
  projectIds: string[],
  f: RequestFilters,
  after: [string, string] | null,
  cols: string[],
) {
  const w = requestWhere(projectIds, f, { projectExpr: 'p.id' });
  const { rows } = await db.raw<{ rows: RequestListRecord[] }>(
    `select x.* from unnest(?::uuid[]) p(id) cross join lateral (
       select ${cols.join(', ')}, ${isoSql('r.created_at')} as cursor_t from requests r
        where ${w.sql}${after ? ' and (r.created_at, r.id) < (?::timestamptz, ?::uuid)' : ''}
        order by r.created_at desc, r.id desc limit ?) x
      order by x.created_at desc, x.id desc limit ?`,
    [projectIds, ...w.args, ...(after ?? []), f.limit + 1, f.limit + 1],
  );
  return rows;
}

export const findRequestRow = (db: Knex, projectIds: string[], id: string): Promise<RequestDetailRecord | undefined> =>
  db('requests')
    .select([...LIST_COLUMNS, ...BODY_COLUMNS])
    .where({ id })
    .whereIn('project_id', projectIds)
    .first();
