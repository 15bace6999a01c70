import type { Knex } from 'knex';

export async function countOf(
  db: Knex,
  table: 'projects' | 'memberships' | 'api_keys',
  orgId: string,
): Promise<number> {
  const [row] = await db(table).where({ org_id: orgId }).count({ n: '*' });
  return Number(row!.n);
}

/**
 * Requests logged this calendar month, or null where the proxy's request log does not exist.
 * Counted through the project ids so the (project_id, created_at) index of the request log serves it.
 */
export async function requestsThisMonth(db: Knex, orgId: string): Promise<number | null> {
  const { rows } = await db.raw(`select to_regclass('public.requests') is not null as present`);
  if (!rows[0]?.present) return null;
  const r = await db.raw(
    `select count(*)::bigint as n from requests
     where project_id in (select id from projects where org_id = ?) and created_at >= date_trunc('month', now())`,
    [orgId],
  );
  return Number(r.rows[0].n);
}

export const recentPlanChanges = (db: Knex, orgId: string) =>
  db('plan_changes')
    .select('from_plan', 'to_plan', 'changed_by', 'created_at')
    .where({ org_id: orgId })
    .orderBy('created_at', 'desc')
    .limit(20);

export const insertPlanChange = (
  trx: Knex.Transaction,
  row: { org_id: string; from_plan: string; to_plan: string; changed_by: string },
) => trx('plan_changes').insert(row);
