import { z } from 'zod';
import { eventKinds } from '../../events/outbox';
import { cursorQuery, limitQuery } from '../../http/pagination';
import { isoDateTime, timestamp } from '../../http/schemas';
import { attemptSchema } from '../deliveries/schemas';

/** Contracts of a webhook's attempt log (GET …/attempts) and delivery statistics (GET …/stats). */

/** An attempt's outcome: `delivered` is a 2xx answer without error, anything else (no answer included) `failed`. */
const attemptStatuses = ['delivered', 'failed'] as const;
const httpStatusClasses = ['2xx', '4xx', '5xx'] as const;

export const listAttemptsQuery = z
  .object({
    status: z.enum(attemptStatuses).optional(),
    http_status: z.enum(httpStatusClasses).optional().describe('class of the last response’s status'),
    since: isoDateTime.optional().describe('attempts started at or after this time'),
    until: isoDateTime.optional().describe('…and before this time'),
    event_type: z.enum([...eventKinds, 'test']).optional(),
    limit: limitQuery(50, 200),
    cursor: cursorQuery.optional(),
  })
  .strict();
export type ListAttemptsQuery = z.output<typeof listAttemptsQuery>;

export const webhookAttemptSchema = attemptSchema
  .extend({
    delivery_id: z.uuid(),
    event_type: z.string(),
    workflow_id: z.string().nullable().describe('the delivery’s latest Temporal workflow (null for a test delivery)'),
  })
  .meta({ id: 'WebhookAttempt' });
export type WebhookAttemptView = z.infer<typeof webhookAttemptSchema>;

const statsWindows = ['24h', '7d', '30d'] as const;
export type StatsWindow = (typeof statsWindows)[number];
export const statsQuery = z.object({ window: z.enum(statsWindows).default('24h') }).strict();

const count = z.number().int();
export const webhookStatsSchema = z
  .object({
    window: z.enum(statsWindows),
    since: timestamp.describe('start of the first bucket: deliveries created at or after it are counted'),
    bucket: z.enum(['hour', 'day']),
    deliveries: z.object({
      total: count,
      pending: count,
      delivered: count,
      failed: count,
      dead_lettered: count,
      cancelled: count,
    }),
    attempts: count.describe('attempts of those deliveries'),
    success_rate: z.number().nullable().describe('delivered / (delivered + dead_lettered); null when none finished'),
    attempts_per_delivery: z.number().nullable().describe('mean; null without deliveries'),
    duration_ms: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }).describe('attempt durations'),
    series: z
      .array(z.object({ bucket: timestamp, delivered: count, failed: count, dead_lettered: count }))
      .describe('every hour (24h) or UTC day (7d, 30d) of the window, oldest first, empty ones included'),
  })
  .meta({ id: 'WebhookStats' });
export type WebhookStatsView = z.infer<typeof webhookStatsSchema>;
