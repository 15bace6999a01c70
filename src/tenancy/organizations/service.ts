import type { Knex } from 'knex';
import { recordAudit } from '../../audit/audit';
import type { AuthUser, Principal, Role } from '../../auth/principal';
import { HttpError, notFound } from '../../http/errors';
import { highestPlan, WORKSPACE_LIMITS, type Plan } from '../plans';
import * as q from './queries';

type User = Principal & { kind: 'user' };

export async function listMyOrganizations(db: Knex, userId: string) {
  const rows = await q.organizationsOfUser(db, userId);
  return rows.map((r) => ({ ...r, is_owner: r.owner_user_id === userId }));
}

/** The organization in context with the caller's role in it. */
export async function getOrganization(db: Knex, p: User) {
  const org = await q.findOrganization(db, p.orgId);
  if (!org) throw notFound('Organization');
  return { ...org, role: p.role, is_owner: org.owner_user_id === p.userId };
}

/** How many workspaces the user owns and what that allows. Call inside the transaction that holds the user lock. */
async function workspaceAllowance(db: Knex | Knex.Transaction, userId: string) {
  const rows = await q.plansOwnedBy(db, userId);
  const effectivePlan = highestPlan(rows.map((r) => r.plan));
  return { owned: rows.length, limit: WORKSPACE_LIMITS[effectivePlan], effectivePlan };
}

const limitReached = (message: string, a: { owned: number; limit: number; effectivePlan: Plan }) =>
  new HttpError(402, 'workspace_limit_reached', message, {
    owned: a.owned,
    limit: a.limit,
    effectivePlan: a.effectivePlan,
  });

/**
 * Creates a workspace owned by the caller, who becomes its admin. The user row is locked first so
 * concurrent creates by the same user are serialized and cannot exceed the plan limit together.
 */
export async function createOrganization(db: Knex, user: AuthUser, name: string) {
  return db.transaction(async (trx) => {
    await q.lockUser(trx, user.userId);
    const { owned, limit, effectivePlan } = await workspaceAllowance(trx, user.userId);
    if (limit !== null && owned >= limit) {
      const message =
        `Your ${effectivePlan} plan allows ${limit} workspace${limit === 1 ? '' : 's'} and you own ${owned}. ` +
        'Upgrade a workspace you own to create more.';
      throw limitReached(message, { owned, limit, effectivePlan });
    }
    const org = await q.insertOrganization(trx, name, user.userId);
    await q.insertMembership(trx, org.id, user.userId, 'admin');
    const actor: Principal = {
      kind: 'user',
      userId: user.userId,
      sub: user.sub,
      email: user.email,
      orgId: org.id,
      role: 'admin',
    };
    await recordAudit(trx, {
      orgId: org.id,
      actor,
      action: 'organization.created',
      resourceType: 'organization',
      resourceId: org.id,
      after: org,
    });
    return { ...org, role: 'admin' as Role, is_owner: true };
  });
}

export async function renameOrganization(db: Knex, actor: User, name: string) {
  return db.transaction(async (trx) => {
    const locked = await q.lockOrganization(trx, actor.orgId);
    const before = locked && { id: locked.id, name: locked.name };
    const org = await q.updateOrganization(trx, actor.orgId, { name });
    await recordAudit(trx, {
      orgId: actor.orgId,
      actor,
      action: 'organization.updated',
      resourceType: 'organization',
      resourceId: actor.orgId,
      before,
      after: { id: actor.orgId, name },
    });
    return org;
  });
}

/** Deletes the workspace and everything in it (cascade). Only its owner may do this. */
export async function deleteOrganization(db: Knex, actor: User): Promise<void> {
  await db.transaction(async (trx) => {
    const org = await q.lockOrganization(trx, actor.orgId);
    if (!org) return;
    if (org.owner_user_id !== actor.userId)
      throw new HttpError(403, 'owner_required', 'Only the owner of the workspace can delete it');
    await q.deleteOrganizationRow(trx, actor.orgId);
  });
}

/** Hands ownership (and so its plan allowance) to another admin of the workspace. */
export async function transferOwnership(db: Knex, actor: User, newOwnerId: string) {
  const orgId = actor.orgId;
  return db.transaction(async (trx) => {
    const org = await q.lockOrganization(trx, orgId);
    if (!org) throw notFound('Organization');
    if (org.owner_user_id !== actor.userId)
      throw new HttpError(403, 'owner_required', 'Only the owner can transfer ownership');
    const role = await q.memberRole(trx, orgId, newOwnerId);
    if (!role) throw notFound('Member');
    if (role !== 'admin')
      throw new HttpError(409, 'new_owner_must_be_admin', 'The new owner must be an admin of the workspace');
    // The new owner's own workspace allowance applies, under their user lock.
    await q.lockUser(trx, newOwnerId);
    const allowance = await workspaceAllowance(trx, newOwnerId);
    const effectivePlan = highestPlan([allowance.effectivePlan, org.plan]);
    const limit = WORKSPACE_LIMITS[effectivePlan];
    if (limit !== null && allowance.owned + 1 > limit) {
      throw limitReached(
        `The new owner's ${effectivePlan} plan allows ${limit} workspaces and they own ${allowance.owned}.`,
        { owned: allowance.owned, limit, effectivePlan },
      );
    }
    const updated = await q.updateOrganization(trx, orgId, { owner_user_id: newOwnerId });
    await recordAudit(trx, {
      orgId,
      actor,
      action: 'organization.ownership_transferred',
      resourceType: 'organization',
      resourceId: orgId,
      before: { owner_user_id: org.owner_user_id },
      after: { owner_user_id: newOwnerId },
    });
    return updated;
  });
}
