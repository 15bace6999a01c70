import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Principal } from '../auth/principal';
import { badRequest, conflict, notFound } from '../http/errors';
import * as q from './queries';
import type { ConfigView, CreateConfigInput, DataType, UpdateConfigInput } from './schemas';
import { isoText } from '../db/convert';
import type { Scope } from '../http/route';

/** What other features read of this one's data (they never import its queries). */
export { findConfig } from './queries';

/** Score configs: the shape a score of a name must have (docs/scores.md). */

const toView = (r: q.ConfigRecord): ConfigView => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  data_type: r.data_type,
  min: r.min ?? null,
  max: r.max ?? null,
  categories: r.categories ?? null,
  description: r.description ?? null,
  is_archived: r.is_archived,
  created_at: isoText(r.created_at),
  updated_at: isoText(r.updated_at),
});

/** The one project a write goes to: the key's, the one named, or the organization's only one. */
export function oneProject(scope: Scope): string {
  if (scope.projectIds.length !== 1)
    throw badRequest('project_id is required: the organization has more than one project', 'project_id_required');
  return scope.projectIds[0]!;
}

/** min/max only for numeric configs, categories required for (and only for) categorical ones. */
function checkShape(
  t: DataType,
  c: { min?: number | null | undefined; max?: number | null | undefined; categories?: unknown },
) {
  if (t !== 'numeric' && ((c.min ?? null) !== null || (c.max ?? null) !== null))
    throw badRequest(`min and max apply to numeric configs, not ${t}`, 'invalid_config');
  if (t === 'categorical' && !c.categories) throw badRequest('a categorical config needs categories', 'invalid_config');
  if (t !== 'categorical' && c.categories)
    throw badRequest(`categories apply to categorical configs, not ${t}`, 'invalid_config');
  if (c.min != null && c.max != null && c.min > c.max) throw badRequest('min must not exceed max', 'invalid_config');
}

export const listConfigs = async (
  db: Knex,
  scope: Scope,
  f: { data_type?: DataType | undefined; include_archived?: boolean | undefined },
) =>
  (await q.listConfigs(db, scope.projectIds, { dataType: f.data_type, includeArchived: f.include_archived })).map(
    toView,
  );

export async function getConfig(db: Knex, projectIds: string[], id: string) {
  const row = await q.findConfig(db, projectIds, id);
  if (!row) throw notFound('Score config');
  return toView(row);
}

const userIdOf = (p: Principal) => (p.kind === 'user' ? p.userId : null);
const nameTaken = (name: string) =>
  conflict(`A score config named "${name}" already exists in this project`, 'score_config_exists');

export async function createConfig(db: Knex, actor: Principal, scope: Scope, input: CreateConfigInput) {
  checkShape(input.data_type, input);
  const projectId = oneProject(scope);
  return db.transaction(async (trx) => {
    const row = await q.insertConfig(trx, {
      org_id: scope.orgId,
      project_id: projectId,
      name: input.name,
      data_type: input.data_type,
      min: input.min ?? null,
      max: input.max ?? null,
      categories: input.categories ? JSON.stringify(input.categories) : null,
      description: input.description ?? null,
      created_by: userIdOf(actor),
    });
    if (!row) throw nameTaken(input.name);
    await recordAudit(trx, {
      orgId: scope.orgId,
      actor,
      action: 'score_config.created',
      resourceType: 'score_config',
      resourceId: row.id,
      after: toView(row),
    });
    return toView(row);
  });
}

/** Name, description and archiving any time; bounds and categories only while no score uses the config. */
export async function updateConfig(
  db: Knex,
  actor: Principal,
  projectIds: string[],
  id: string,
  input: UpdateConfigInput,
) {
  return db.transaction(async (trx) => {
    const before = await q.findConfig(trx, projectIds, id).forUpdate();
    if (!before) throw notFound('Score config');
    const shape = input.min !== undefined || input.max !== undefined || input.categories !== undefined;
    const next = {
      min: input.min !== undefined ? input.min : before.min,
      max: input.max !== undefined ? input.max : before.max,
      categories: input.categories ?? before.categories,
    };
    if (shape) {
      checkShape(before.data_type, next);
      if (await q.configInUse(trx, id))
        throw conflict(
          'Scores use this config: its bounds and categories are fixed (archive it and create another)',
          'score_config_in_use',
        );
    }
    const patch: Record<string, unknown> = {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.is_archived !== undefined) patch.is_archived = input.is_archived;
    if (shape)
      Object.assign(patch, {
        min: next.min,
        max: next.max,
        categories: next.categories ? JSON.stringify(next.categories) : null,
      });
    const after = await q.updateConfig(trx, id, patch).catch((err: { code?: string }) => {
      throw err.code === '23505' ? nameTaken(String(input.name ?? before.name)) : err;
    });
    await recordAudit(trx, {
      orgId: before.org_id,
      actor,
      action: 'score_config.updated',
      resourceType: 'score_config',
      resourceId: id,
      before: toView(before),
      after: toView(after),
    });
    return toView(after);
  });
}

/** A config no score uses is deleted; one in use is kept (archive it instead). */
export async function deleteConfig(db: Knex, actor: Principal, projectIds: string[], id: string) {
  return db.transaction(async (trx) => {
    const before = await q.findConfig(trx, projectIds, id).forUpdate();
    if (!before) throw notFound('Score config');
    if (await q.configInUse(trx, id))
      throw conflict('Scores use this config: archive it instead (PATCH is_archived: true)', 'score_config_in_use');
    await q.deleteConfig(trx, id);
    await recordAudit(trx, {
      orgId: before.org_id,
      actor,
      action: 'score_config.deleted',
      resourceType: 'score_config',
      resourceId: id,
      before: toView(before),
    });
    return { id, deleted: true as const };
  });
}
