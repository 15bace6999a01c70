import { z } from 'zod';
import { eventKinds } from '../events/outbox';

/** One schema per payload: used for validation and to document the API (docs/webhooks.md). */

const httpsUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .refine((v) => URL.canParse(v), 'must be a valid URL')
  .refine((v) => URL.canParse(v) && new URL(v).protocol === 'https:', 'must start with https:// (plain HTTP is not accepted)')
  .refine((v) => !URL.canParse(v) || (!new URL(v).username && !new URL(v).password), 'must not contain credentials')
  .refine((v) => !URL.canParse(v) || new URL(v).hostname.length > 0, 'must have a host');

const events = z
  .array(z.enum(eventKinds, { message: `each event must be one of ${eventKinds.join(', ')}` }))
  .max(eventKinds.length * 4)
  .transform((list) => [...new Set(list)]);

export const createWebhookBody = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(200),
    url: httpsUrl,
    events,
    is_active: z.boolean().default(true),
  })
  .strict();

export const updateWebhookBody = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(200).optional(),
    url: httpsUrl.optional(),
    events: events.optional(),
    is_active: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'send at least one of name, url, events, is_active');

export type CreateWebhookInput = z.infer<typeof createWebhookBody>;
export type UpdateWebhookInput = z.infer<typeof updateWebhookBody>;
