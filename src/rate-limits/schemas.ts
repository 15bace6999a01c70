import { z } from 'zod';
import { uuidSchema } from '../http/ids';
import { timestamp } from '../http/schemas';

/** The caps of one project: requests and/or tokens per fixed window. */
const rateLimitSchema = z
  .object({
    requests_per_window: z.number().int().positive().max(1_000_000_000).nullable().optional(),
    tokens_per_window: z.number().int().positive().max(1e15).nullable().optional(),
    window_seconds: z.number().int().min(1).max(2_592_000),
  })
  .strict()
  .refine((v) => v.requests_per_window != null || v.tokens_per_window != null, {
    message: 'set requests_per_window, tokens_per_window or both',
    path: ['requests_per_window'],
  });
export type RateLimitInput = z.infer<typeof rateLimitSchema>;

export const putRateLimitBody = z.intersection(z.object({ project_id: uuidSchema }), rateLimitSchema);
/** `project_id` may be left out when the organization has exactly one project. */
export const projectQuery = z.object({ project_id: uuidSchema.optional() });
export const usageQuery = projectQuery.extend({ user_id: z.string().min(1).max(256) });

const caps = {
  requests_per_window: z.number().int().nullable(),
  tokens_per_window: z.number().int().nullable(),
  window_seconds: z.number().int(),
};

export const rateLimitView = z
  .object({ project_id: z.uuid(), ...caps, created_at: timestamp, updated_at: timestamp })
  .meta({ id: 'RateLimit' });

export const rateLimitUsage = z
  .object({
    project_id: z.uuid(),
    user_id: z.string(),
    ...caps,
    window_start: timestamp,
    requests: z.number().int(),
    tokens: z.number().int(),
  })
  .meta({ id: 'RateLimitUsage', description: "The end user's counters in the current window" });
