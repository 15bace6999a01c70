import type { Knex } from 'knex';
import type { Principal } from '../auth/principal';
import { badRequest, notFound } from '../http/errors';
import { findVisible } from '../saved-filters/service';
import type { CreateShareInput } from './schemas';

type Resource = Pick<CreateShareInput, 'resource_type' | 'resource_id'>;
const WHAT: Record<Resource['resource_type'], string> = {
  trace: 'Trace',
  session: 'Session',
  request: 'Request',
  experiment_comparison: 'Experiment',
  stats_view: 'Saved filter',
};

/**
 * The project a share goes to when the caller names none: the one its resource is in, among the
 * projects the caller sees (another organization's resource is not found). Trace and session ids
 * are chosen by clients and unique per project only: one found in several needs `project_id`.
 */
export async function projectOfResource(
  db: Knex,
  actor: Principal,
  projectIds: string[],
  r: Resource,
): Promise<string> {
  const found = await projectsOf(db, actor, projectIds, r);
  // Experiments of different projects cannot be compared from any one of them.
  if (found.length === 0 || (found.length > 1 && r.resource_type === 'experiment_comparison'))
    throw notFound(WHAT[r.resource_type]);
  if (found.length > 1)
    throw badRequest(
      `${WHAT[r.resource_type]} ${r.resource_id} exists in ${found.length} projects: send project_id`,
      'project_id_required',
    );
  return found[0]!;
}

type Rows = { project_id: string }[];
const distinct = (rows: Rows) => [...new Set(rows.map((x) => x.project_id))];

async function projectsOf(db: Knex, actor: Principal, projectIds: string[], r: Resource): Promise<string[]> {
  const id = r.resource_id;
  switch (r.resource_type) {
    case 'request':
      return distinct(await db('requests').select('project_id').where({ id }).whereIn('project_id', projectIds));
    case 'trace':
      return distinct(await db('traces').select('project_id').where({ id }).whereIn('project_id', projectIds));
    case 'session': {
      // A session is its traces and its proxied requests (src/sessions/queries.ts).
      const { rows } = await db.raw(
        `select project_id from traces where session_id = ? and project_id = any(?::uuid[])
         union select project_id from requests where session_id = ? and project_id = any(?::uuid[])`,
        [id, projectIds, id, projectIds],
      );
      return distinct(rows as Rows);
    }
    case 'experiment_comparison': {
      const ids = [...new Set(id.split(','))];
      const rows = (await db('experiments')
        .select('project_id')
        .whereIn('id', ids)
        .whereIn('project_id', projectIds)) as Rows;
      return rows.length === ids.length ? distinct(rows) : [];
    }
    case 'stats_view':
      return [(await findVisible(db, actor, projectIds, id)).project_id];
  }
}
