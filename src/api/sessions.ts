import { Router } from 'express';
import { z } from 'zod';
import { requireJwt, resolveProjectScope } from '../auth/middleware';
import type { AppContext } from '../context';
import { notFound } from '../http/errors';
import { parseParams, parseQuery } from '../http/validate';
import { isoQuery, limitQuery } from '../traces/common';
import { getSession, listSessions } from '../traces/sessions';

export const sessionListQuery = z.object({
  project_id: z.string().optional(),
  from: isoQuery.optional(),
  to: isoQuery.optional(),
  user_id: z.string().min(1).max(256).optional(),
  limit: limitQuery(50, 200),
  cursor: z.string().max(2000).optional(),
});

/**
 * GET /api/v1/sessions and /api/v1/sessions/:id. The spec lists Sessions among the JWT-only groups
 * (public keys are accepted only on the dual-auth read endpoints), so these take a user token.
 */
export function sessionsRouter(ctx: AppContext): Router {
  const router = Router();
  router.use('/api/v1/sessions', requireJwt(ctx));

  router.get('/api/v1/sessions', async (req, res) => {
    const q = parseQuery(sessionListQuery, req);
    const { projectIds } = await resolveProjectScope(ctx, req);
    const page = await listSessions(ctx.db, { projectIds, from: q.from, to: q.to, userId: q.user_id, limit: q.limit, cursor: q.cursor });
    res.json({ success: true, data: page.sessions, next_cursor: page.next_cursor });
  });

  router.get('/api/v1/sessions/:id', async (req, res) => {
    const { id } = parseParams(z.object({ id: z.string().min(1).max(256) }), req);
    const { projectIds } = await resolveProjectScope(ctx, req);
    const session = await getSession(ctx.db, projectIds, id);
    if (!session) throw notFound('Session');
    res.json({ success: true, data: session });
  });
  return router;
}
