import type { Knex } from 'knex';
import { recordAudit } from '../../audit/audit';
import type { Principal } from '../../auth/principal';
import { notFound } from '../../http/errors';
import * as q from './queries';

export const listProjects = (db: Knex, orgId: string) => q.listProjects(db, orgId);

/** A project of this organization or 404 (ids of other organizations look nonexistent). */
export async function requireProject(db: Knex | Knex.Transaction, orgId: string, id: string) {
  const p = await q.findProject(db, orgId, id);
  if (!p) throw notFound('Project');
  return p;
}

export function createProject(db: Knex, actor: Principal, name: string) {
  return db.transaction(async (trx) => {
    const row = await q.insertProject(trx, actor.orgId, name);
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'project.created',
      resourceType: 'project',
      resourceId: row.id,
      after: row,
    });
    return row;
  });
}

export function renameProject(db: Knex, actor: Principal, id: string, name: string) {
  return db.transaction(async (trx) => {
    const before = await q.findProject(trx, actor.orgId, id, { forUpdate: true });
    if (!before) throw notFound('Project');
    const row = await q.updateProjectName(trx, id, name);
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'project.updated',
      resourceType: 'project',
      resourceId: id,
      before,
      after: row,
    });
    return row;
  });
}

/** Deletes the project with its keys and (through the FKs of other features) its data. */
export async function deleteProject(db: Knex, actor: Principal, id: string) {
  await db.transaction(async (trx) => {
    const before = await q.deleteProjectRow(trx, actor.orgId, id);
    if (!before) throw notFound('Project');
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'project.deleted',
      resourceType: 'project',
      resourceId: id,
      before,
    });
  });
}
