import type { AppContext } from '../context';
import { route } from '../http/route';
import { listAuditLogs } from './audit';
import { auditLogSchema, auditLogsQuery } from './schemas';

/** GET /api/v1/audit-logs: admins only (audit rows name members and show before/after states). */
export const auditRoutes = ({ db }: AppContext) => [
  route({
    method: 'get',
    path: '/api/v1/audit-logs',
    tag: 'Audit logs',
    summary: "The organization's audit trail, newest first",
    auth: 'jwt',
    roles: ['admin'],
    query: auditLogsQuery,
    envelope: 'page',
    response: auditLogSchema,
    handler: ({ principal, query }) => listAuditLogs(db, principal.orgId, query),
  }),
];
