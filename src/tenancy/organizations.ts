import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { AuthUser, Principal, Role } from '../auth/principal';
import { HttpError } from '../http/errors';
import { highestPlan, WORKSPACE_LIMITS, type Plan } from './plans';

export interface OrganizationView {
  id: string;
  name: string;
  plan: Plan;
  owner_user_id: string;
  created_at: Date;
  updated_at: Date;
  role?: Role;
  is_owner?: boolean;
}

const COLUMNS = ['o.id', 'o.name', 'o.plan', 'o.owner_user_id', 'o.created_at', 'o.updated_at'];

export async function listMyOrganizations(db: Knex, userId: string): Promise<OrganizationView[]> {
  const rows = await db('organizations as o')
    .join('memberships as m', 'm.org_id', 'o.id')
    .where('m.user_id', userId)
    .select([...COLUMNS, 'm.role'])
    .orderBy('o.created_at');
  return rows.map((r) => ({ ...r, is_owner: r.owner_user_id === userId }));
}

export async function getOrganization(db: Knex | Knex.Transaction, orgId: string): Promise<OrganizationView | null> {
  return (await db('organizations as o').select(COLUMNS).where('o.id', orgId).first()) ?? null;
}

/** How many workspaces the user owns and what that allows. Call inside the transaction that holds the user lock. */
export async function workspaceAllowance(db: Knex | Knex.Transaction, userId: string) {
  const rows: { plan: Plan }[] = await db('organizations').select('plan').where({ owner_user_id: userId });
  const effectivePlan = highestPlan(rows.map((r) => r.plan));
  return { owned: rows.length, limit: WORKSPACE_LIMITS[effectivePlan], effectivePlan };
}

/**
 * Creates a workspace owned by the caller, who becomes its admin. The user row is locked first so
 * concurrent creates by the same user are serialized and cannot exceed the plan limit together.
 */
export async function createOrganization(db: Knex, user: AuthUser, name: string): Promise<OrganizationView> {
  return db.transaction(async (trx) => {
    await trx('users').select('id').where({ id: user.userId }).forUpdate();
    const { owned, limit, effectivePlan } = await workspaceAllowance(trx, user.userId);
    if (limit !== null && owned >= limit) {
      throw new HttpError(
        402,
        'workspace_limit_reached',
        `Your ${effectivePlan} plan allows ${limit} workspace${limit === 1 ? '' : 's'} and you own ${owned}. Upgrade a workspace you own to create more.`,
        { owned, limit, effectivePlan },
      );
    }
    const [org] = await trx('organizations').insert({ name, owner_user_id: user.userId }).returning(['id', 'name', 'plan', 'owner_user_id', 'created_at', 'updated_at']);
    await trx('memberships').insert({ org_id: org.id, user_id: user.userId, role: 'admin' });
    const actor: Principal = { kind: 'user', userId: user.userId, sub: user.sub, email: user.email, orgId: org.id, role: 'admin' };
    await recordAudit(trx, { orgId: org.id, actor, action: 'organization.created', resourceType: 'organization', resourceId: org.id, after: org });
    return { ...org, role: 'admin' as Role, is_owner: true };
  });
}

export async function renameOrganization(db: Knex, actor: Principal & { kind: 'user' }, orgId: string, name: string): Promise<OrganizationView> {
  return db.transaction(async (trx) => {
    const before = await trx('organizations').select('id', 'name').where({ id: orgId }).forUpdate().first();
    const [org] = await trx('organizations').where({ id: orgId }).update({ name }).returning(['id', 'name', 'plan', 'owner_user_id', 'created_at', 'updated_at']);
    await recordAudit(trx, { orgId, actor, action: 'organization.updated', resourceType: 'organization', resourceId: orgId, before, after: { id: orgId, name } });
    return org;
  });
}

/** Deletes the workspace and everything in it (cascade). Only its owner may do this. */
export async function deleteOrganization(db: Knex, actor: Principal & { kind: 'user' }, orgId: string): Promise<void> {
  await db.transaction(async (trx) => {
    const org = await trx('organizations').select('owner_user_id').where({ id: orgId }).forUpdate().first();
    if (!org) return;
    if (org.owner_user_id !== actor.userId) {
      throw new HttpError(403, 'owner_required', 'Only the owner of the workspace can delete it');
    }
    await trx('organizations').where({ id: orgId }).delete();
  });
}

/** Hands ownership (and so its plan allowance) to another admin of the workspace. */
export async function transferOwnership(db: Knex, actor: Principal & { kind: 'user' }, orgId: string, newOwnerId: string): Promise<OrganizationView> {
  return db.transaction(async (trx) => {
    const org = await trx('organizations').select('owner_user_id').where({ id: orgId }).forUpdate().first();
    if (!org) throw new HttpError(404, 'not_found', 'Organization not found');
    if (org.owner_user_id !== actor.userId) throw new HttpError(403, 'owner_required', 'Only the owner can transfer ownership');
    const target = await trx('memberships').select('role').where({ org_id: orgId, user_id: newOwnerId }).first();
    if (!target) throw new HttpError(404, 'not_found', 'Member not found');
    if (target.role !== 'admin') throw new HttpError(409, 'new_owner_must_be_admin', 'The new owner must be an admin of the workspace');
    // The new owner's own workspace allowance applies, under their user lock.
    await trx('users').select('id').where({ id: newOwnerId }).forUpdate();
    const orgPlan = (await trx('organizations').select('plan').where({ id: orgId }).first()).plan as Plan;
    const allowance = await workspaceAllowance(trx, newOwnerId);
    const effectivePlan = highestPlan([allowance.effectivePlan, orgPlan]);
    const limit = WORKSPACE_LIMITS[effectivePlan];
    if (limit !== null && allowance.owned + 1 > limit) {
      throw new HttpError(402, 'workspace_limit_reached', `The new owner's ${effectivePlan} plan allows ${limit} workspaces and they own ${allowance.owned}.`, {
        owned: allowance.owned,
        limit,
        effectivePlan,
      });
    }
    const [updated] = await trx('organizations').where({ id: orgId }).update({ owner_user_id: newOwnerId }).returning(['id', 'name', 'plan', 'owner_user_id', 'created_at', 'updated_at']);
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
