import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { limitQuery } from '../http/pagination';
import { timestamp } from '../http/schemas';

const KINDS = [
  'cheaper_model',
  'cache_repeats',
  'prompt_growth',
  'rate_limited',
  'upstream_errors',
  'stream_long_completions',
] as const;

export const recommendationParams = uuidParams('id');
export const listRecommendationsQuery = z
  .object({
    project_id: uuidSchema.optional(),
    kind: z.enum(KINDS).optional(),
    status: z.enum(['open', 'dismissed']).optional(),
    limit: limitQuery(50, 200),
  })
  .strict();
export const readRecommendationQuery = z.object({ project_id: uuidSchema.optional() }).strict();

export const recommendationSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    kind: z.enum(KINDS),
    subject: z.string().describe('what it is about: a model, a prompt version, an end user or key, or the project'),
    title: z.string(),
    detail: z.string(),
    evidence: z.record(z.string(), z.unknown()).describe('the counts, token sums and sample request ids behind it'),
    monthly_saving_usd: z
      .number()
      .describe('estimated from the last 7 days × 30/7; 0 for reliability and latency advice'),
    status: z.enum(['open', 'dismissed']),
    dismissed_at: timestamp.nullable(),
    dismissed_by: z.string().nullable(),
    computed_at: timestamp,
  })
  .meta({ id: 'Recommendation' });
