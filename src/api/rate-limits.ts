import { Router } from 'express';
import { z } from 'zod';
import { requireJwt, requireRole, resolveProjectScope } from '../auth/middleware';
import { principalOf } from '../auth/principal';
import { recordAudit } from '../audit/audit';
import type { AppContext } from '../context';
import { badRequest, notFound } from '../http/errors';
import { parseBody, parseQuery } from '../http/validate';
import { rateLimitSchema } from '../proxy/rate-limit';

/**
 * Per-end-user rate limits of a project (JWT; writes need admin or editor). One configuration
 * per project; the end user is the proxy's `x-service-user-id` header. Changes reach every api
 * replica's proxy at once through the `proxy_invalidate` notification (migration 004b).
 *   GET    /api/v1/rate-limits?project_id=   the configurations in scope
 *   PUT    /api/v1/rate-limits               set {project_id, requests_per_window?, tokens_per_window?, window_seconds}
 *   DELETE /api/v1/rate-limits?project_id=   remove (no cap)
 *   GET    /api/v1/rate-limits/usage?project_id=&user_id=   the end user's current window
 */
const putSchema = z.intersection(z.object({ project_id: z.string().uuid() }), rateLimitSchema);
const VIEW = ['project_id', 'requests_per_window', 'tokens_per_window', 'window_seconds', 'created_at', 'updated_at'];

async function oneProject(ctx: AppContext, req: Parameters<typeof resolveProjectScope>[1]) {
  const scope = await resolveProjectScope(ctx, req);
  if (scope.projectIds.length !== 1) throw badRequest('Pass project_id to choose the project', 'project_required', { field: 'project_id' });
  return { orgId: scope.orgId, projectId: scope.projectIds[0]! };
}

export function rateLimitsRouter(ctx: AppContext): Router {
  const router = Router();
  const jwt = requireJwt(ctx);
  const writer = requireRole('admin', 'editor');

  router.get('/api/v1/rate-limits', jwt, async (req, res) => {
    parseQuery(z.object({ project_id: z.string().optional() }), req);
    const scope = await resolveProjectScope(ctx, req);
    const rows = await ctx.db('rate_limits').select(VIEW).whereIn('project_id', scope.projectIds).orderBy('created_at');
    res.json({ success: true, data: rows });
  });

  router.put('/api/v1/rate-limits', jwt, writer, async (req, res) => {
    const body = parseBody(putSchema, req);
    const { orgId, projectId } = await oneProject(ctx, req);
    const values = {
      requests_per_window: body.requests_per_window ?? null,
      tokens_per_window: body.tokens_per_window ?? null,
      window_seconds: body.window_seconds,
    };
    const out = await ctx.db.transaction(async (trx) => {
      const before = await trx('rate_limits').select(VIEW).where({ project_id: projectId }).forUpdate().first();
      const [row] = await trx('rate_limits')
        .insert({ project_id: projectId, org_id: orgId, ...values })
        .onConflict('project_id')
        .merge(values)
        .returning(VIEW);
      await recordAudit(trx, { orgId, actor: principalOf(req), action: before ? 'rate_limit.updated' : 'rate_limit.created', resourceType: 'rate_limit', resourceId: projectId, before, after: row });
      return { row, created: !before };
    });
    res.status(out.created ? 201 : 200).json({ success: true, data: out.row });
  });

  router.delete('/api/v1/rate-limits', jwt, writer, async (req, res) => {
    const { orgId, projectId } = await oneProject(ctx, req);
    const removed = await ctx.db.transaction(async (trx) => {
      const [before] = await trx('rate_limits').where({ project_id: projectId }).del().returning(VIEW);
      if (before) await recordAudit(trx, { orgId, actor: principalOf(req), action: 'rate_limit.deleted', resourceType: 'rate_limit', resourceId: projectId, before });
      return before;
    });
    if (!removed) throw notFound('Rate limit');
    res.status(204).end();
  });

  router.get('/api/v1/rate-limits/usage', jwt, async (req, res) => {
    const q = parseQuery(z.object({ project_id: z.string().optional(), user_id: z.string().min(1).max(256) }), req);
    const { projectId } = await oneProject(ctx, req);
    const { rows } = await ctx.db.raw(
      `select l.requests_per_window, l.tokens_per_window, l.window_seconds,
              to_timestamp(floor(extract(epoch from now()) / l.window_seconds) * l.window_seconds) as window_start,
              coalesce(c.requests, 0) as requests, coalesce(c.tokens, 0)::bigint as tokens
         from rate_limits l
         left join rate_limit_counters c
           on c.project_id = l.project_id and c.user_id = ?
          and c.window_start = to_timestamp(floor(extract(epoch from now()) / l.window_seconds) * l.window_seconds)
        where l.project_id = ?`,
      [q.user_id, projectId],
    );
    if (!rows[0]) throw notFound('Rate limit');
    res.json({ success: true, data: { project_id: projectId, user_id: q.user_id, ...rows[0] } });
  });

  return router;
}
