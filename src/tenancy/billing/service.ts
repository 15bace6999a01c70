import type { Knex } from 'knex';
import { recordAudit } from '../../audit/audit';
import type { Principal } from '../../auth/principal';
import { notFound } from '../../http/errors';
import { findOrganization, lockOrganization, updateOrganization } from '../organizations/queries';
import { PLANS, WORKSPACE_LIMITS, type Plan } from '../plans';
import * as q from './queries';

/** Plan, its limits and current usage of one organization. */
export async function billingSummary(db: Knex, orgId: string) {
  const org = await findOrganization(db, orgId);
  if (!org) throw notFound('Organization');
  const [projects, members, apiKeys, requests, history] = await Promise.all([
    q.countOf(db, 'projects', orgId),
    q.countOf(db, 'memberships', orgId),
    q.countOf(db, 'api_keys', orgId),
    q.requestsThisMonth(db, orgId),
    q.recentPlanChanges(db, orgId),
  ]);
  return {
    organization_id: org.id,
    plan: org.plan as Plan,
    owner_user_id: org.owner_user_id,
    plans: PLANS.map((p) => ({ plan: p, workspace_limit: WORKSPACE_LIMITS[p] })),
    limits: { workspaces_per_owner: WORKSPACE_LIMITS[org.plan as Plan] },
    usage: { projects, members, api_keys: apiKeys, requests_this_month: requests },
    plan_changes: history,
  };
}

/** Changes the plan, recording the change and an audit row in one transaction. */
export async function changePlan(db: Knex, actor: Principal & { kind: 'user' }, plan: Plan) {
  return db.transaction(async (trx) => {
    const org = await lockOrganization(trx, actor.orgId);
    if (!org) throw notFound('Organization');
    if (org.plan !== plan) {
      await updateOrganization(trx, actor.orgId, { plan });
      await q.insertPlanChange(trx, {
        org_id: actor.orgId,
        from_plan: org.plan,
        to_plan: plan,
        changed_by: actor.userId,
      });
      const before = { id: org.id, plan: org.plan };
      await recordAudit(trx, {
        orgId: actor.orgId,
        actor,
        action: 'billing.plan_changed',
        resourceType: 'organization',
        resourceId: actor.orgId,
        before,
        after: { id: actor.orgId, plan },
      });
    }
    return { organization_id: actor.orgId, plan, previous_plan: org.plan };
  });
}
