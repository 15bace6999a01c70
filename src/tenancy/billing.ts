import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Principal } from '../auth/principal';
import { notFound } from '../http/errors';
import { PLANS, WORKSPACE_LIMITS, type Plan } from './plans';

async function count(db: Knex, table: string, orgId: string): Promise<number> {
  const [row] = await db(table).where({ org_id: orgId }).count({ n: '*' });
  return Number(row!.n);
}

/** Plan, its limits and current usage of one organization. */
export async function billingSummary(db: Knex, orgId: string) {
  const org = await db('organizations').select('id', 'name', 'plan', 'owner_user_id').where({ id: orgId }).first();
  if (!org) throw notFound('Organization');
  const [projects, members, apiKeys] = await Promise.all([count(db, 'projects', orgId), count(db, 'memberships', orgId), count(db, 'api_keys', orgId)]);
  // The request log belongs to the proxy feature; count it only where its table exists.
  let requestsThisMonth: number | null = null;
  const { rows } = await db.raw(`select to_regclass('public.requests') is not null as present`);
  if (rows[0]?.present) {
    // Through the project ids so the (project_id, created_at) index of the request log serves it.
    const r = await db.raw(
      `select count(*)::bigint as n from requests
       where project_id in (select id from projects where org_id = ?) and created_at >= date_trunc('month', now())`,
      [orgId],
    );
    requestsThisMonth = Number(r.rows[0].n);
  }
  const history = await db('plan_changes').select('from_plan', 'to_plan', 'changed_by', 'created_at').where({ org_id: orgId }).orderBy('created_at', 'desc').limit(20);
  return {
    organization_id: org.id,
    plan: org.plan as Plan,
    owner_user_id: org.owner_user_id,
    plans: PLANS.map((p) => ({ plan: p, workspace_limit: WORKSPACE_LIMITS[p] })),
    limits: { workspaces_per_owner: WORKSPACE_LIMITS[org.plan as Plan] },
    usage: { projects, members, api_keys: apiKeys, requests_this_month: requestsThisMonth },
    plan_changes: history,
  };
}

/** Changes the plan, recording the change and an audit row in one transaction. */
export async function changePlan(db: Knex, actor: Principal & { kind: 'user' }, plan: Plan) {
  return db.transaction(async (trx) => {
    const before = await trx('organizations').select('id', 'plan').where({ id: actor.orgId }).forUpdate().first();
    if (!before) throw notFound('Organization');
    if (before.plan !== plan) {
      await trx('organizations').where({ id: actor.orgId }).update({ plan });
      await trx('plan_changes').insert({ org_id: actor.orgId, from_plan: before.plan, to_plan: plan, changed_by: actor.userId });
      await recordAudit(trx, { orgId: actor.orgId, actor, action: 'billing.plan_changed', resourceType: 'organization', resourceId: actor.orgId, before, after: { id: actor.orgId, plan } });
    }
    return { organization_id: actor.orgId, plan, previous_plan: before.plan as Plan };
  });
}
