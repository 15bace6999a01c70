import type { Knex } from 'knex';
import type { AnalyticsStore } from '../analytics/store';
import { recordAudit } from '../audit/audit';
import { type Principal, actorLabel } from '../auth/principal';
import { notFound } from '../http/errors';
import { computeRecommendations } from './compute';
import {
  dismiss,
  findRecommendation,
  listRecommendations,
  projectsWithCalls,
  saveRun,
  type RecommendationRecord,
} from './queries';
import type { listRecommendationsQuery } from './schemas';
import type { z } from 'zod';
import { isoOrNull, isoText } from '../db/convert';

const toView = (r: RecommendationRecord) => ({
  id: r.id,
  project_id: r.project_id,
  kind: r.kind,
  subject: r.subject,
  title: r.title,
  detail: r.detail,
  evidence: r.evidence,
  monthly_saving_usd: Number(r.monthly_saving_usd),
  status: r.status,
  dismissed_at: isoOrNull(r.dismissed_at),
  dismissed_by: r.dismissed_by ?? null,
  computed_at: isoText(r.computed_at),
});

/** One run of the `recommendations` schedule: every project with calls in the window. */
export async function recomputeAll(
  db: Knex,
  store: AnalyticsStore,
  nowMs: number,
): Promise<{ projects: number; recommendations: number }> {
  const at = new Date(nowMs).toISOString();
  const projects = await projectsWithCalls(db, new Date(nowMs - 7 * 86_400_000).toISOString());
  let n = 0;
  for (const p of projects) {
    const recs = await computeRecommendations(store, p.id, nowMs);
    await saveRun(db, p.org_id, p.id, recs, at);
    n += recs.length;
  }
  return { projects: projects.length, recommendations: n };
}

export async function list(db: Knex, projectIds: string[], p: z.output<typeof listRecommendationsQuery>) {
  return (await listRecommendations(db, { projectIds, kind: p.kind, status: p.status, limit: p.limit })).map(toView);
}

export async function read(db: Knex, projectIds: string[], id: string) {
  const row = await findRecommendation(db, projectIds, id);
  if (!row) throw notFound('Recommendation');
  return toView(row);
}

/** Dismisses a recommendation (audited); it stays dismissed unless its saving doubles. */
export async function dismissOne(db: Knex, principal: Principal, projectIds: string[], id: string) {
  return db.transaction(async (trx) => {
    const before = await findRecommendation(trx, projectIds, id).forUpdate();
    if (!before) throw notFound('Recommendation');
    if (before.status === 'dismissed') return toView(before);
    const by = actorLabel(principal);
    const after = await dismiss(trx, id, by, new Date().toISOString());
    await recordAudit(trx, {
      orgId: principal.orgId,
      actor: principal,
      action: 'recommendation.dismissed',
      resourceType: 'recommendation',
      resourceId: id,
      before: { status: 'open' },
      after: { status: 'dismissed' },
    });
    return toView(after);
  });
}
