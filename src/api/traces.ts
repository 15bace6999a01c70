import { Router } from 'express';
import { z } from 'zod';
import { requireReadAccess, resolveProjectScope } from '../auth/middleware';
import type { AppContext } from '../context';
import { notFound } from '../http/errors';
import { parseParams, parseQuery } from '../http/validate';
import { clientId } from '../ingest/schemas';
import { isoQuery, limitQuery } from '../traces/common';
import { getTrace, listTraces } from '../traces/traces';

export const traceListQuery = z.object({
  project_id: z.string().optional(),
  from: isoQuery.optional(),
  to: isoQuery.optional(),
  status: z.enum(['running', 'completed', 'error']).optional(),
  name: z.string().min(1).max(512).optional(),
  user_id: z.string().min(1).max(256).optional(),
  session_id: z.string().min(1).max(256).optional(),
  min_duration_ms: z.coerce.number().min(0).optional(),
  limit: limitQuery(50, 200),
  cursor: z.string().max(2000).optional(),
});

/** GET /api/v1/traces and /api/v1/traces/:id: JWT or API key (public keys included). */
export function tracesRouter(ctx: AppContext): Router {
  const router = Router();
  router.use('/api/v1/traces', requireReadAccess(ctx));

  router.get('/api/v1/traces', async (req, res) => {
    const q = parseQuery(traceListQuery, req);
    const { projectIds } = await resolveProjectScope(ctx, req);
    const page = await listTraces(ctx.db, {
      projectIds,
      from: q.from,
      to: q.to,
      status: q.status,
      name: q.name,
      userId: q.user_id,
      sessionId: q.session_id,
      minDurationMs: q.min_duration_ms,
      limit: q.limit,
      cursor: q.cursor,
    });
    res.json({ success: true, data: page.traces, next_cursor: page.next_cursor });
  });

  router.get('/api/v1/traces/:id', async (req, res) => {
    const { id } = parseParams(z.object({ id: clientId }), req);
    const { projectIds } = await resolveProjectScope(ctx, req);
    const trace = await getTrace(ctx.db, projectIds, id);
    if (!trace) throw notFound('Trace');
    res.json({ success: true, data: trace });
  });
  return router;
}
