import { z } from 'zod';
import { eventKinds } from '../events/outbox';
import { uuidParams } from '../http/ids';
import { nameSchema, timestamp } from '../http/schemas';
import { customHeadersSchema } from './custom-headers';
import { deliveryStatuses } from './policy';
import { refuseWebhookUrl, type UrlRule } from './url-policy';

/** Request and response contracts of /api/v1/webhooks (they also generate the OpenAPI document). */

/** What a registration error says for each URL rule (the address rule is the service's: 400 webhook_url_forbidden). */
const urlRuleMessages: Record<Exclude<UrlRule, 'address'>, string> = {
  invalid: 'must be a valid URL',
  scheme: 'must start with https:// (plain HTTP is not accepted)',
  credentials: 'must not contain credentials',
  host: 'must have a host',
};

const httpsUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .superRefine((v, ctx) => {
    const refusal = refuseWebhookUrl(v);
    if (refusal && refusal.rule !== 'address') ctx.addIssue({ code: 'custom', message: urlRuleMessages[refusal.rule] });
  })
  .meta({ format: 'uri', example: 'https://hooks.example.com/llm-gateway' });

const events = z
  .array(z.enum(eventKinds, { message: `each event must be one of ${eventKinds.join(', ')}` }))
  .max(eventKinds.length * 4)
  .transform((list) => [...new Set(list)]);

export const webhookParams = uuidParams('id');

export const createWebhookBody = z
  .object({
    name: nameSchema,
    url: httpsUrl,
    events,
    is_active: z.boolean().default(true),
    headers: customHeadersSchema.optional(),
  })
  .strict();

export const updateWebhookBody = z
  .object({
    name: nameSchema.optional(),
    url: httpsUrl.optional(),
    events: events.optional(),
    is_active: z.boolean().optional(),
    headers: customHeadersSchema.optional(),
  })
  .strict()
  .refine(
    (b) => Object.values(b).some((v) => v !== undefined),
    'send at least one of name, url, events, is_active, headers',
  );

/** POST /:id/secret/rotate: how long the replaced secret keeps signing (0: not at all; at most 7 days). */
const MAX_PREVIOUS_SECRET_S = 7 * 24 * 3600;
export const rotateSecretBody = z
  .object({
    previous_expires_in_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_PREVIOUS_SECRET_S)
      .default(86_400)
      .describe('seconds the previous secret stays valid (default 86400; 0 ends it now)'),
  })
  .strict()
  // The body itself is optional: a POST without one rotates with the default overlap.
  .default({ previous_expires_in_seconds: 86_400 });

export type CreateWebhookInput = z.infer<typeof createWebhookBody>;
export type UpdateWebhookInput = z.infer<typeof updateWebhookBody>;
export type RotateSecretInput = z.infer<typeof rotateSecretBody>;

export const webhookSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    url: z.string(),
    /** Full only in the create response; later `abcd…`. */
    secret: z.string(),
    events: z.array(z.enum(eventKinds)),
    is_active: z.boolean(),
    /** Until when the secret the last rotation replaced still signs (null: none valid). */
    previous_secret_expires_at: timestamp.nullable(),
    /** `failing`: the service disabled it after failing deliveries; cleared by PATCH is_active true. */
    disabled_reason: z.enum(['failing']).nullable(),
    disabled_at: timestamp.nullable(),
    /** Values are never shown: they may be credentials. */
    header_names: z.array(z.string()).describe('names of the custom headers sent with every attempt (no values)'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Webhook' });
export type WebhookView = z.infer<typeof webhookSchema>;

export const deliverySchema = z
  .object({
    id: z.uuid(),
    webhook_id: z.uuid(),
    event_type: z.string(),
    status: z.enum(deliveryStatuses),
    http_status: z.number().int().nullable(),
    error_message: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    attempt_count: z.number().int(),
    next_retry_at: timestamp.nullable(),
    dlq_at: timestamp.nullable(),
    dlq_reason: z.string().nullable(),
    delivered_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
export type DeliveryView = z.infer<typeof deliverySchema>;

export const testDeliverySchema = z
  .object({
    delivery_id: z.uuid(),
    status: z.enum(['delivered', 'failed']),
    http_status: z.number().int().nullable(),
    duration_ms: z.number().int(),
    error_message: z.string().nullable(),
  })
  .meta({ id: 'WebhookTestDelivery' });
export type TestDeliveryResult = z.infer<typeof testDeliverySchema>;
