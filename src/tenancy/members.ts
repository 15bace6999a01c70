import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Principal, Role } from '../auth/principal';
import { conflict, notFound } from '../http/errors';

export function listMembers(db: Knex, orgId: string) {
  return db('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .join('organizations as o', 'o.id', 'm.org_id')
    .where('m.org_id', orgId)
    .select('m.user_id', 'u.email', 'u.sub', 'm.role', 'm.created_at as joined_at', db.raw('(o.owner_user_id = m.user_id) as is_owner'))
    .orderBy('m.created_at');
}

/**
 * Locks the organization's memberships so concurrent demotions/removals cannot together remove the
 * last admin, then checks the target and the rules.
 */
async function lockedTarget(trx: Knex.Transaction, orgId: string, userId: string) {
  const org = await trx('organizations').select('owner_user_id').where({ id: orgId }).forUpdate().first();
  if (!org) throw notFound('Organization');
  const target = await trx('memberships').select('role', 'created_at').where({ org_id: orgId, user_id: userId }).first();
  if (!target) throw notFound('Member');
  const admins = Number((await trx('memberships').where({ org_id: orgId, role: 'admin' }).count({ n: '*' }))[0]!.n);
  return { target, admins, ownerId: org.owner_user_id as string };
}

export async function changeMemberRole(db: Knex, actor: Principal & { kind: 'user' }, userId: string, role: Role) {
  return db.transaction(async (trx) => {
    const { target, admins, ownerId } = await lockedTarget(trx, actor.orgId, userId);
    if (target.role === role) return { user_id: userId, role };
    if (target.role === 'admin' && admins <= 1) throw conflict('The last admin of an organization cannot be demoted', 'last_admin');
    if (userId === ownerId) throw conflict('The owner must stay an admin; transfer ownership first', 'owner_must_be_admin');
    await trx('memberships').where({ org_id: actor.orgId, user_id: userId }).update({ role });
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'member.role_changed',
      resourceType: 'member',
      resourceId: userId,
      before: { user_id: userId, role: target.role },
      after: { user_id: userId, role },
    });
    return { user_id: userId, role };
  });
}

export async function removeMember(db: Knex, actor: Principal & { kind: 'user' }, userId: string) {
  await db.transaction(async (trx) => {
    const { target, admins, ownerId } = await lockedTarget(trx, actor.orgId, userId);
    if (target.role === 'admin' && admins <= 1) throw conflict('The last admin of an organization cannot be removed', 'last_admin');
    if (userId === ownerId) throw conflict('The owner cannot be removed; transfer ownership first', 'owner_cannot_be_removed');
    await trx('memberships').where({ org_id: actor.orgId, user_id: userId }).delete();
    await recordAudit(trx, { orgId: actor.orgId, actor, action: 'member.removed', resourceType: 'member', resourceId: userId, before: { user_id: userId, role: target.role } });
  });
}
