import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Principal } from '../auth/principal';
import { badRequest, forbidden, notFound } from '../http/errors';
import { isUuid } from '../http/ids';
import { oneProject } from '../score-configs/service';
import * as q from './queries';
import type { View } from './schemas';
import { isoText } from '../db/convert';
import type { Scope } from '../http/route';

/**
 * Saved filters: private ones are their owner's alone; project ones are seen by every member and
 * by the project's API keys, created and changed by admin and editor (or their owner).
 */
const userOf = (p: Principal) => (p.kind === 'user' ? p.userId : null);

const toView = (r: q.SavedFilterRecord, p: Principal) => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  view: r.view,
  filter: r.filter,
  columns: r.columns ?? null,
  sort: r.sort ?? null,
  visibility: r.visibility,
  owner_id: r.owner_id ?? null,
  mine: r.owner_id !== null && r.owner_id === userOf(p),
  created_at: isoText(r.created_at),
  updated_at: isoText(r.updated_at),
});

/** The filters this caller may see. */
const visible = (db: Knex, p: Principal, projectIds: string[]) => q.visibleFilters(db, projectIds, userOf(p));

export async function findVisible(db: Knex, p: Principal, projectIds: string[], id: string) {
  if (!isUuid(id)) throw notFound('Saved filter');
  const row = await visible(db, p, projectIds).andWhere({ id }).first();
  if (!row) throw notFound('Saved filter');
  return row;
}

/**
 * A filter of one project and view by id, whoever owns it: what a share shows (the share was checked
 * against its creator's access when it was made). Unknown, of another project or view: 404.
 */
export async function filterOfProject(db: Knex, projectId: string, id: string, view: View) {
  const where = { id, project_id: projectId, view };
  const row = isUuid(id) ? await db<q.SavedFilterRecord>('saved_filters').where(where).first() : undefined;
  if (!row) throw notFound('Saved filter');
  return row;
}

/** A filter's parameters as the view's query takes them: a string, or a list for repeated ones. */
export const filterParams = (r: Pick<q.SavedFilterRecord, 'filter'>) =>
  Object.fromEntries(
    Object.entries(r.filter).map(([k, v]) => [k, typeof v === 'string' || Array.isArray(v) ? v : String(v)]),
  ) as Record<string, string | string[]>;

/**
 * What a saved filter shows to anyone holding a share of it: its name and its parameters (the
 * project is the share's), never its owner, visibility or ids.
 */
export function publicFilter(r: Pick<q.SavedFilterRecord, 'name' | 'filter'>) {
  const { project_id: _p, ...params } = filterParams(r);
  return { name: r.name, filter: params };
}

const canChange = (p: Principal, r: q.SavedFilterRecord) =>
  p.kind === 'user' &&
  (r.owner_id === p.userId || (r.visibility === 'project' && (p.role === 'admin' || p.role === 'editor')));

export const listSavedFilters = async (db: Knex, p: Principal, projectIds: string[], view?: View) => {
  const rows = visible(db, p, projectIds);
  if (view) rows.andWhere({ view });
  return (await rows.orderBy([{ column: 'view' }, { column: 'name' }, { column: 'id' }])).map((r) => toView(r, p));
};
export const getSavedFilter = async (db: Knex, p: Principal, projectIds: string[], id: string) =>
  toView(await findVisible(db, p, projectIds, id), p);

export async function createSavedFilter(
  db: Knex,
  p: Principal,
  scope: Scope,
  input: {
    name: string;
    view: View;
    filter: Record<string, unknown>;
    columns?: string[] | null | undefined;
    sort?: string | null | undefined;
    visibility: 'private' | 'project';
  },
) {
  if (p.kind !== 'user') throw forbidden('Saved filters are created by people (JWT)', 'jwt_required');
  if (input.visibility === 'project' && p.role === 'viewer')
    throw forbidden('Sharing a filter with the project needs role admin or editor', 'insufficient_role');
  const projectId = oneProject(scope);
  const row = await q.insertFilter(db, {
    org_id: scope.orgId,
    project_id: projectId,
    owner_id: p.userId,
    name: input.name,
    view: input.view,
    filter: JSON.stringify(input.filter),
    columns: input.columns ?? null,
    sort: input.sort ?? null,
    visibility: input.visibility,
  });
  await recordAudit(db, {
    orgId: scope.orgId,
    actor: p,
    action: 'saved_filter.created',
    resourceType: 'saved_filter',
    resourceId: row.id,
    after: toView(row, p),
  });
  return toView(row, p);
}

export async function updateSavedFilter(
  db: Knex,
  p: Principal,
  projectIds: string[],
  id: string,
  input: Record<string, unknown>,
) {
  const before = await findVisible(db, p, projectIds, id);
  if (!canChange(p, before))
    throw forbidden('Only its owner (or admin and editor, for a project filter) may change this filter', 'not_owner');
  if (input.visibility === 'project' && p.kind === 'user' && p.role === 'viewer')
    throw forbidden('Sharing a filter with the project needs role admin or editor', 'insufficient_role');
  const patch = Object.fromEntries(
    Object.entries(input)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, k === 'filter' ? JSON.stringify(v) : v]),
  );
  const after = await q.updateFilter(db, id, patch);
  await recordAudit(db, {
    orgId: before.org_id,
    actor: p,
    action: 'saved_filter.updated',
    resourceType: 'saved_filter',
    resourceId: id,
    before: toView(before, p),
    after: toView(after, p),
  });
  return toView(after, p);
}

export async function deleteSavedFilter(db: Knex, p: Principal, projectIds: string[], id: string) {
  const before = await findVisible(db, p, projectIds, id);
  if (!canChange(p, before))
    throw forbidden('Only its owner (or admin and editor, for a project filter) may delete this filter', 'not_owner');
  await q.deleteFilter(db, id);
  await recordAudit(db, {
    orgId: before.org_id,
    actor: p,
    action: 'saved_filter.deleted',
    resourceType: 'saved_filter',
    resourceId: id,
    before: toView(before, p),
  });
  return { id, deleted: true as const };
}

/** The query of a view with a saved filter applied: its values first, explicit parameters over them. */
export async function applySavedFilter(
  db: Knex,
  p: Principal,
  projectIds: string[],
  view: View,
  query: Record<string, unknown>,
) {
  const id = query.saved_filter_id;
  if (typeof id !== 'string' || !id) return query;
  const row = await findVisible(db, p, projectIds, id);
  if (row.view !== view)
    throw badRequest(`saved filter ${id} is for the ${row.view} view, not ${view}`, 'saved_filter_view_mismatch');
  const { saved_filter_id: _s, ...explicit } = query;
  return { ...filterParams(row), ...explicit, project_id: explicit.project_id ?? row.project_id };
}
