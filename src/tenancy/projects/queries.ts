import type { Knex } from 'knex';

const COLUMNS = ['id', 'org_id', 'name', 'created_at', 'updated_at'];

export const listProjects = (db: Knex, orgId: string) =>
  db('projects').select(COLUMNS).where({ org_id: orgId }).orderBy('created_at');

export const findProject = async (
  db: Knex | Knex.Transaction,
  orgId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
) => {
  const q = db('projects').select(COLUMNS).where({ org_id: orgId, id });
  if (opts.forUpdate) q.forUpdate();
  return (await q.first()) ?? null;
};

export const insertProject = async (trx: Knex.Transaction, orgId: string, name: string) =>
  (await trx('projects').insert({ org_id: orgId, name }).returning(COLUMNS))[0];

export const updateProjectName = async (trx: Knex.Transaction, id: string, name: string) =>
  (await trx('projects').where({ id }).update({ name }).returning(COLUMNS))[0];

export const deleteProjectRow = async (trx: Knex.Transaction, orgId: string, id: string) =>
  (await trx('projects').where({ org_id: orgId, id }).delete().returning(COLUMNS))[0] ?? null;
