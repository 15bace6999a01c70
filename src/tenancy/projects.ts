import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Principal } from '../auth/principal';
import { notFound } from '../http/errors';

const COLUMNS = ['id', 'org_id', 'name', 'created_at', 'updated_at'];

export const listProjects = (db: Knex, orgId: string) => db('projects').select(COLUMNS).where({ org_id: orgId }).orderBy('created_at');

export async function getProject(db: Knex | Knex.Transaction, orgId: string, id: string) {
  return (await db('projects').select(COLUMNS).where({ org_id: orgId, id }).first()) ?? null;
}

/** A project of this organization or 404 (ids of other organizations look nonexistent). */
export async function requireProject(db: Knex | Knex.Transaction, orgId: string, id: string) {
  const p = await getProject(db, orgId, id);
  if (!p) throw notFound('Project');
  return p;
}

export async function createProject(db: Knex, actor: Principal, name: string) {
  return db.transaction(async (trx) => {
    const [row] = await trx('projects').insert({ org_id: actor.orgId, name }).returning(COLUMNS);
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'project.created', resourceType: 'project', resourceId: row.id, after: row });
    return row;
  });
}

export async function renameProject(db: Knex, actor: Principal, id: string, name: string) {
  return db.transaction(async (trx) => {
    const before = await trx('projects').select(COLUMNS).where({ org_id: actor.orgId, id }).forUpdate().first();
    if (!before) throw notFound('Project');
    const [row] = await trx('projects').where({ id }).update({ name }).returning(COLUMNS);
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'project.updated', resourceType: 'project', resourceId: id, before, after: row });
    return row;
  });
}

/** Deletes the project with its keys and (through the FKs of other features) its data. */
export async function deleteProject(db: Knex, actor: Principal, id: string) {
  await db.transaction(async (trx) => {
    const [before] = await trx('projects').where({ org_id: actor.orgId, id }).delete().returning(COLUMNS);
    if (!before) throw notFound('Project');
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'project.deleted', resourceType: 'project', resourceId: id, before });
  });
}
