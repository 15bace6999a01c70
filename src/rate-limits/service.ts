import type { LocalChanges } from '../db/changes';
import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Auth } from '../auth/middleware';
import type { Principal } from '../auth/principal';
import { badRequest, notFound } from '../http/errors';
import * as q from './queries';
import type { RateLimitInput } from './schemas';

/**
 * Per-end-user rate limits of a project: one configuration per project; the end user is the
 * proxy's `x-service-user-id` header. Changes reach every api replica's proxy at once through the
 * `proxy_invalidate` notification (migration 004b).
 */
export async function listRateLimits(auth: Auth, db: Knex, p: Principal, projectId?: string) {
  const scope = await auth.projectScope(p, projectId);
  return q.listRateLimits(db, scope.projectIds);
}

/** The one project a write or usage read is about: named, or the organization's only one. */
async function oneProject(auth: Auth, p: Principal, projectId?: string) {
  const scope = await auth.projectScope(p, projectId);
  if (scope.projectIds.length !== 1) throw badRequest('Pass project_id to choose the project', 'project_required', { field: 'project_id' });
  return { orgId: scope.orgId, projectId: scope.projectIds[0]! };
}

export async function putRateLimit(auth: Auth, db: Knex, changes: LocalChanges, actor: Principal, input: RateLimitInput & { project_id: string }) {
  const { orgId, projectId } = await oneProject(auth, actor, input.project_id);
  const values = { requests_per_window: input.requests_per_window ?? null, tokens_per_window: input.tokens_per_window ?? null, window_seconds: input.window_seconds };
  const out = await db.transaction(async (trx) => {
    const before = await q.lockRateLimit(trx, projectId);
    const row = await q.upsertRateLimit(trx, orgId, projectId, values);
    const action = before ? 'rate_limit.updated' : 'rate_limit.created';
    await recordAudit(trx, { orgId, actor, action, resourceType: 'rate_limit', resourceId: projectId, before, after: row });
    return { row, created: !before };
  });
  changes.changed('rate_limits');
  return out;
}

export async function deleteRateLimit(auth: Auth, db: Knex, changes: LocalChanges, actor: Principal, projectId?: string) {
  const scope = await oneProject(auth, actor, projectId);
  await db.transaction(async (trx) => {
    const before = await q.deleteRateLimit(trx, scope.projectId);
    if (!before) throw notFound('Rate limit');
    await recordAudit(trx, { orgId: scope.orgId, actor, action: 'rate_limit.deleted', resourceType: 'rate_limit', resourceId: scope.projectId, before });
  });
  changes.changed('rate_limits');
}

export async function rateLimitUsage(auth: Auth, db: Knex, p: Principal, projectId: string | undefined, userId: string) {
  const scope = await oneProject(auth, p, projectId);
  const row = await q.currentUsage(db, scope.projectId, userId);
  if (!row) throw notFound('Rate limit');
  return { project_id: scope.projectId, user_id: userId, ...row };
}
