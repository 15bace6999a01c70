import type { Knex } from 'knex';
import type { Recommendation } from './compute';

/** A recommendations row as pg returns it (numeric parses as a number, src/db/knex.ts). */
export interface RecommendationRecord {
  id: string;
  org_id: string;
  project_id: string;
  kind: Recommendation['kind'];
  subject: string;
  title: string;
  detail: string;
  evidence: Record<string, unknown>;
  monthly_saving_usd: number;
  status: 'open' | 'dismissed';
  dismissed_at: Date | null;
  dismissed_by: string | null;
  dismissed_saving_usd: number | null;
  computed_at: Date;
  created_at: Date;
}

/** SQL of the recommendations feature. */
export async function projectsWithCalls(db: Knex, since: string): Promise<{ id: string; org_id: string }[]> {
  const { rows } = await db.raw(
    `select p.id, p.org_id from projects p
      where exists (select 1 from request_rollups_live r
                     where r.project_id = p.id and r.dim = '' and r.bucket >= ?)
        or exists (select 1 from recommendations c where c.project_id = p.id and c.status = 'open')`,
    [since],
  );
  return rows;
}

/**
 * Stores a run's recommendations: updated in place; a dismissed one reopens only when its saving
 * has at least doubled since it was dismissed; the project's open ones this run did not produce
 * are deleted (their evidence is gone), dismissed ones are kept so they stay dismissed.
 */
export async function saveRun(
  db: Knex,
  orgId: string,
  projectId: string,
  recs: Recommendation[],
  at: string,
): Promise<void> {
  await db.transaction(async (trx) => {
    for (const r of recs) {
      await trx.raw(
        `insert into recommendations (org_id, project_id, kind, subject, title, detail, evidence, monthly_saving_usd,
                                     computed_at)
         values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)
         on conflict (project_id, kind, subject) do update set
           title = excluded.title, detail = excluded.detail, evidence = excluded.evidence,
           monthly_saving_usd = excluded.monthly_saving_usd, computed_at = excluded.computed_at,
           status = case when recommendations.status = 'dismissed' and excluded.monthly_saving_usd > 0
                          and excluded.monthly_saving_usd >= 2 * recommendations.dismissed_saving_usd then 'open'
                          else recommendations.status end`,
        [orgId, projectId, r.kind, r.subject, r.title, r.detail, JSON.stringify(r.evidence), r.monthlySavingUsd, at],
      );
    }
    await trx('recommendations')
      .where({ project_id: projectId, status: 'open' })
      .andWhere('computed_at', '<', at)
      .del();
  });
}

export interface ListFilter {
  projectIds: string[];
  kind?: string | undefined;
  status?: string | undefined;
  limit: number;
}
export const listRecommendations = (db: Knex, f: ListFilter) => {
  const q = db<RecommendationRecord>('recommendations').whereIn('project_id', f.projectIds);
  if (f.kind) q.andWhere('kind', f.kind);
  if (f.status) q.andWhere('status', f.status);
  return q
    .orderBy([{ column: 'monthly_saving_usd', order: 'desc' }, { column: 'kind' }, { column: 'subject' }])
    .limit(f.limit);
};
export const findRecommendation = (db: Knex, projectIds: string[], id: string) =>
  db<RecommendationRecord>('recommendations').whereIn('project_id', projectIds).andWhere({ id }).first();
export async function dismiss(db: Knex, id: string, by: string, at: string): Promise<RecommendationRecord> {
  const [row] = await db('recommendations')
    .where({ id })
    .update({
      status: 'dismissed',
      dismissed_at: at,
      dismissed_by: by,
      dismissed_saving_usd: db.ref('monthly_saving_usd'),
    })
    .returning('*');
  return row;
}
