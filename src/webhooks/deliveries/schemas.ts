import { z } from 'zod';
import { uuidParams } from '../../http/ids';
import { timestamp } from '../../http/schemas';
import { deliverySchema } from '../schemas';

/** Contracts of one delivery: its detail with the attempt history, and redeliver. */

export const deliveryParams = uuidParams('id', 'deliveryId');

export const attemptSchema = z
  .object({
    number: z
      .number()
      .int()
      .describe("the delivery's attempt number (they continue across redeliveries and recoveries)"),
    source: z
      .enum(['delivery', 'test', 'redelivery', 'recovery'])
      .describe('who made it: the delivery workflow, the test route, a redelivery run, a recovery'),
    redelivery: z.number().int().nullable().describe('the redelivery run (1, 2, …) of a `redelivery` attempt'),
    recovery_id: z.uuid().nullable().describe('the recovery of a `recovery` attempt'),
    started_at: timestamp,
    duration_ms: z.number().int(),
    http_status: z.number().int().nullable().describe('status of the last response, null when none arrived'),
    error_message: z.string().nullable(),
    redirects: z
      .array(z.object({ status: z.number().int(), location: z.string() }))
      .describe('each redirect answered, in order (the last may be the one refused)'),
    response_headers: z.string().nullable().describe('first 1 KB of the last response’s headers, `name: value` lines'),
    response_body: z.string().nullable().describe('first 1 KB of the last response’s body, as UTF-8'),
    response_body_truncated: z.boolean().describe('the body was longer than 1 KB'),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
export type AttemptView = z.infer<typeof attemptSchema>;

export const deliveryDetailSchema = deliverySchema
  .extend({
    created_at: timestamp,
    redeliveries: z.number().int().describe('redelivery runs started by POST …/redeliver'),
    workflow_id: z
      .string()
      .nullable()
      .describe('the latest workflow of this delivery: `webhook-delivery-<id>` or `…-redeliver-<n>`'),
    attempts: attemptSchema.array().describe('oldest first; the 100 most recent when there were more'),
  })
  .meta({ id: 'WebhookDeliveryDetail' });
export type DeliveryDetailView = z.infer<typeof deliveryDetailSchema>;

export const redeliverySchema = z
  .object({
    delivery_id: z.uuid(),
    redelivery: z.number().int().describe('this run’s number n'),
    workflow_id: z.string().describe('`webhook-delivery-<delivery id>-redeliver-<n>`'),
    first_attempt: z.number().int().describe('the attempt number this run starts at'),
  })
  .meta({ id: 'WebhookRedelivery' });
export type RedeliveryView = z.infer<typeof redeliverySchema>;
