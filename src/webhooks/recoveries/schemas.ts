import { z } from 'zod';
import { uuidParams } from '../../http/ids';
import { limitQuery } from '../../http/pagination';
import { isoDateTime, timestamp } from '../../http/schemas';
import { recoverableStatuses } from '../policy';

/** Contracts of recoveries: POST /webhooks/:id/recover, their reads and cancel. */

export const recoveryParams = uuidParams('id', 'rid');
export const listRecoveriesQuery = z.object({ limit: limitQuery(20, 100) }).strict();

export const recoverBody = z
  .object({
    since: isoDateTime.describe('deliveries created at or after this time'),
    until: isoDateTime.optional().describe('…and before this time (default: now)'),
    statuses: z
      .array(z.enum(recoverableStatuses, { message: `each status must be one of ${recoverableStatuses.join(', ')}` }))
      .min(1)
      .max(recoverableStatuses.length * 2)
      .transform((list) => [...new Set(list)])
      .optional()
      .describe('default both'),
  })
  .strict();
export type RecoverInput = z.infer<typeof recoverBody>;

export const recoverySchema = z
  .object({
    id: z.uuid(),
    webhook_id: z.uuid(),
    since: timestamp,
    until: timestamp,
    statuses: z.array(z.enum(recoverableStatuses)),
    status: z.enum(['running', 'completed', 'cancelled', 'failed']),
    matched: z.number().int().describe('deliveries the recovery took up so far (sent or skipped)'),
    redelivered: z.number().int().describe('of those, sent again (once each)'),
    delivered: z.number().int().describe('of those, answered 2xx'),
    failed: z.number().int().describe('of those, failed or interrupted (their status is left as it was)'),
    skipped: z
      .number()
      .int()
      .describe('matched, then found changed when their turn came (e.g. a redelivery started meanwhile)'),
    workflow_id: z.string().describe('`webhook-recovery-<id>`'),
    error: z.string().nullable(),
    created_by: z.string().nullable(),
    created_at: timestamp,
    finished_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookRecovery' });
export type RecoveryView = z.infer<typeof recoverySchema>;
