import { z } from 'zod';
import { cursorQuery, limitQuery } from '../http/pagination';
import { isoDateTime, timestamp } from '../http/schemas';

export const auditLogsQuery = z.object({
  action: z.string().max(100).optional().describe('an exact action, or `<resource>.*`'),
  resource_type: z.string().max(100).optional(),
  resource_id: z.string().max(200).optional(),
  actor_id: z.string().max(200).optional(),
  from: isoDateTime.optional().describe('at or after'),
  to: isoDateTime.optional().describe('before'),
  limit: limitQuery(50, 200),
  cursor: cursorQuery.optional(),
});
export type AuditLogsQuery = z.output<typeof auditLogsQuery>;

export const auditLogSchema = z
  .object({
    id: z.uuid(),
    actor_type: z.enum(['user', 'api_key', 'system']),
    actor_id: z.string().nullable(),
    actor_label: z.string().nullable(),
    action: z.string().meta({ description: '`<resource>.<past-tense verb>`', example: 'webhook.created' }),
    resource_type: z.string(),
    resource_id: z.string().nullable(),
    before: z.unknown().meta({ description: 'The state before the change, secrets redacted' }),
    after: z.unknown().meta({ description: 'The state after the change, secrets redacted' }),
    created_at: timestamp,
  })
  .meta({ id: 'AuditLog' });
