import type { LocalChanges } from '../db/changes';
import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit';
import type { Principal } from '../auth/principal';
import { badRequest, notFound } from '../http/errors';
import type { Scope } from '../http/route';
import * as q from './queries';
import type { RateLimitInput } from './schemas';

/** What other features read of this one's data (they never import its queries). */
export { windowStartSql } from './queries';

/**
 * Per-end-user rate limits of a project: one configuration per project; the end user is the
 * proxy's `x-service-user-id` header. Changes reach every api replica's proxy at once through the
 * `proxy_invalidate` notification (migration 004b).
 */
export async function listRateLimits(db: Knex, scope: Scope) {
  return q.listRateLimits(db, scope.projectIds);
}

/** The one project a write or usage read is about: named, or the organization's only one. */
function oneProject(scope: Scope) {
  if (scope.projectIds.length !== 1)
    throw badRequest('Pass project_id to choose the project', 'project_required', { field: 'project_id' });
  return { orgId: scope.orgId, projectId: scope.projectIds[0]! };
}

export async function putRateLimit(
  db: Knex,
  changes: LocalChanges,
  actor: Principal,
  scope: Scope,
  input: RateLimitInput,
) {
  const { orgId, projectId } = oneProject(scope);
  const values = {
    requests_per_window: input.requests_per_window ?? null,
    tokens_per_window: input.tokens_per_window ?? null,
    window_seconds: input.window_seconds,
  };
  const out = await db.transaction(async (trx) => {
    const before = await q.lockRateLimit(trx, projectId);
    const row = await q.upsertRateLimit(trx, orgId, projectId, values);
    const action = before ? 'rate_limit.updated' : 'rate_limit.created';
    await recordAudit(trx, {
      orgId,
      actor,
      action,
      resourceType: 'rate_limit',
      resourceId: projectId,
      before,
      after: row,
    });
    return { row, created: !before };
  });
  changes.changed('rate_limits');
  return out;
}

export async function deleteRateLimit(db: Knex, changes: LocalChanges, actor: Principal, scope: Scope) {
  const { orgId, projectId } = oneProject(scope);
  await db.transaction(async (trx) => {
    const before = await q.deleteRateLimit(trx, projectId);
    if (!before) throw notFound('Rate limit');
    await recordAudit(trx, {
      orgId,
      actor,
      action: 'rate_limit.deleted',
      resourceType: 'rate_limit',
      resourceId: projectId,
      before,
    });
  });
  changes.changed('rate_limits');
}

export async function rateLimitUsage(db: Knex, scope: Scope, userId: string) {
  const { projectId } = oneProject(scope);
  const row = await q.currentUsage(db, projectId, userId);
  if (!row) throw notFound('Rate limit');
  return { project_id: projectId, user_id: userId, ...row };
}
