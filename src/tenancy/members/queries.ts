import type { Knex } from 'knex';
import type { Role } from '../../auth/principal';

export const listMembers = (db: Knex, orgId: string) =>
  db('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .join('organizations as o', 'o.id', 'm.org_id')
    .where('m.org_id', orgId)
    .select(
      'm.user_id',
      'u.email',
      'u.sub',
      'm.role',
      'm.created_at as joined_at',
      db.raw('(o.owner_user_id = m.user_id) as is_owner'),
    )
    .orderBy('m.created_at');

export const findMembership = (trx: Knex.Transaction, orgId: string, userId: string) =>
  trx('memberships').select('role', 'created_at').where({ org_id: orgId, user_id: userId }).first() as Promise<
    { role: Role; created_at: Date } | undefined
  >;

export const countAdmins = async (trx: Knex.Transaction, orgId: string) =>
  Number((await trx('memberships').where({ org_id: orgId, role: 'admin' }).count({ n: '*' }))[0]!.n);

export const setMemberRole = (trx: Knex.Transaction, orgId: string, userId: string, role: Role) =>
  trx('memberships').where({ org_id: orgId, user_id: userId }).update({ role });

export const deleteMembership = (trx: Knex.Transaction, orgId: string, userId: string) =>
  trx('memberships').where({ org_id: orgId, user_id: userId }).delete();
