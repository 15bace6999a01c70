import type { Knex } from 'knex';
import { scoresOfRequests } from '../scores/service';
import { toView as scoreView } from '../scores/service';
import { notFound } from '../http/errors';
import { cursorCodec, pageOf } from '../http/pagination';
import { checkFilter } from '../filters/request-filter';
import * as q from './queries';
import type { RequestFilters } from './schemas';

/** Cursor of the request log: (created_at with microseconds, id) of the last row. */
const cursor = cursorCodec('ts', 'uuid');

/** The request log of the projects in scope, newest first, one keyset page. */
export async function listRequests(db: Knex, projectIds: string[], f: RequestFilters) {
  checkFilter(f);
  const after = f.cursor ? (cursor.decode(f.cursor) as [string, string]) : null;
  const rows = await q.listRequestRows(db, projectIds, f, after);
  return pageOf(
    rows,
    f.limit,
    cursor,
    (r) => [r.cursor_t, r.id],
    ({ cursor_t: _c, ...r }) => r,
  );
}

/** One request with its bodies, or 404 (rows of other projects look nonexistent). */
export async function requireRequest(db: Knex, projectIds: string[], id: string) {
  const row = await q.findRequestRow(db, projectIds, id);
  if (!row) throw notFound('Request');
  return { ...row, scores: (await scoresOfRequests(db, [id])).map(scoreView) };
}
