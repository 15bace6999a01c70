import type { Knex } from 'knex';
import { recordAudit } from '../../audit/audit';
import type { Principal, Role } from '../../auth/principal';
import { conflict, notFound } from '../../http/errors';
import { lockOrganization } from '../organizations/queries';
import * as q from './queries';

export const listMembers = (db: Knex, orgId: string) => q.listMembers(db, orgId);

/**
 * Locks the organization so concurrent demotions/removals cannot together remove the last admin,
 * then checks the target and the rules.
 */
async function lockedTarget(trx: Knex.Transaction, orgId: string, userId: string) {
  const org = await lockOrganization(trx, orgId);
  if (!org) throw notFound('Organization');
  const target = await q.findMembership(trx, orgId, userId);
  if (!target) throw notFound('Member');
  return { target, admins: await q.countAdmins(trx, orgId), ownerId: org.owner_user_id };
}

export async function changeMemberRole(db: Knex, actor: Principal, userId: string, role: Role) {
  return db.transaction(async (trx) => {
    const { target, admins, ownerId } = await lockedTarget(trx, actor.orgId, userId);
    if (target.role === role) return { user_id: userId, role };
    if (target.role === 'admin' && admins <= 1)
      throw conflict('The last admin of an organization cannot be demoted', 'last_admin');
    if (userId === ownerId)
      throw conflict('The owner must stay an admin; transfer ownership first', 'owner_must_be_admin');
    await q.setMemberRole(trx, actor.orgId, userId, role);
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

export async function removeMember(db: Knex, actor: Principal, userId: string) {
  await db.transaction(async (trx) => {
    const { target, admins, ownerId } = await lockedTarget(trx, actor.orgId, userId);
    if (target.role === 'admin' && admins <= 1)
      throw conflict('The last admin of an organization cannot be removed', 'last_admin');
    if (userId === ownerId)
      throw conflict('The owner cannot be removed; transfer ownership first', 'owner_cannot_be_removed');
    await q.deleteMembership(trx, actor.orgId, userId);
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'member.removed',
      resourceType: 'member',
      resourceId: userId,
      before: { user_id: userId, role: target.role },
    });
  });
}
