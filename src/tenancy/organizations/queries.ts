import type { Knex } from 'knex';
import type { Plan } from '../plans';

type Db = Knex | Knex.Transaction;
const COLUMNS = ['id', 'name', 'plan', 'owner_user_id', 'created_at', 'updated_at'];

export const organizationsOfUser = (db: Knex, userId: string) =>
  db('organizations as o')
    .join('memberships as m', 'm.org_id', 'o.id')
    .where('m.user_id', userId)
    .select([...COLUMNS.map((c) => `o.${c}`), 'm.role'])
    .orderBy('o.created_at');

export const findOrganization = async (db: Db, orgId: string) =>
  (await db('organizations').select(COLUMNS).where({ id: orgId }).first()) ?? null;

/** Locks the organization row: owner, plan and membership rules are checked under it. */
export const lockOrganization = async (trx: Knex.Transaction, orgId: string) =>
  ((await trx('organizations')
    .select('id', 'name', 'plan', 'owner_user_id')
    .where({ id: orgId })
    .forUpdate()
    .first()) ?? null) as {
    id: string;
    name: string;
    plan: Plan;
    owner_user_id: string;
  } | null;

/** Serialises a user's workspace creations and ownership transfers to them. */
export const lockUser = (trx: Knex.Transaction, userId: string) =>
  trx('users').select('id').where({ id: userId }).forUpdate();

export const plansOwnedBy = (db: Db, userId: string) =>
  db('organizations').select('plan').where({ owner_user_id: userId }) as Promise<{ plan: Plan }[]>;

export const insertOrganization = async (trx: Knex.Transaction, name: string, ownerId: string) =>
  (await trx('organizations').insert({ name, owner_user_id: ownerId }).returning(COLUMNS))[0];

export const insertMembership = (trx: Knex.Transaction, orgId: string, userId: string, role: string) =>
  trx('memberships').insert({ org_id: orgId, user_id: userId, role });

export const updateOrganization = async (
  trx: Knex.Transaction,
  orgId: string,
  patch: { name?: string; owner_user_id?: string; plan?: Plan },
) => (await trx('organizations').where({ id: orgId }).update(patch).returning(COLUMNS))[0];

export const deleteOrganizationRow = (trx: Knex.Transaction, orgId: string) =>
  trx('organizations').where({ id: orgId }).delete();

export const memberRole = async (trx: Knex.Transaction, orgId: string, userId: string) =>
  ((await trx('memberships').select('role').where({ org_id: orgId, user_id: userId }).first())?.role as
    string | undefined) ?? null;
