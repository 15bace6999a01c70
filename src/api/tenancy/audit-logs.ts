import { Router } from 'express';
import { z } from 'zod';
import { listAuditLogs } from '../../audit/query';
import { requireJwt, requireRole } from '../../auth/middleware';
import type { AppContext } from '../../context';
import { parseQuery } from '../../http/validate';
import { userOf } from './common';

export const auditLogsQuery = z.object({
  action: z.string().max(100).optional(),
  resource_type: z.string().max(100).optional(),
  resource_id: z.string().max(200).optional(),
  actor_id: z.string().max(200).optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional(),
});

/** GET /api/v1/audit-logs: admins only (audit rows name members and show before/after states). */
export function auditLogsRouter(ctx: AppContext): Router {
  const r = Router();
  r.get('/api/v1/audit-logs', requireJwt(ctx), requireRole('admin'), async (req, res) => {
    const q = parseQuery(auditLogsQuery, req);
    const page = await listAuditLogs(ctx.db, userOf(req).orgId, q);
    res.json({ success: true, data: page.items, next_cursor: page.next_cursor });
  });
  return r;
}
