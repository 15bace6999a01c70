import { z } from 'zod';
import { uuidListSchema, uuidParams, uuidSchema } from '../http/ids';
import { clientId } from '../ingest/schemas';
import { sessionParams } from '../sessions/schemas';
import { isoDateTime, timestamp } from '../http/schemas';

/** Contracts of /api/v1/shares and /share/:token (docs/shares.md). */
export const RESOURCE_TYPES = ['trace', 'session', 'request', 'experiment_comparison', 'stats_view'] as const;
const shareFields = {
  project_id: uuidSchema.optional().describe("the resource's project; absent: the project the resource is in"),
  expires_at: isoDateTime.nullable().optional(),
  redact_bodies: z.boolean().default(false).describe('inputs and outputs shown as [redacted]'),
};
const shareOf = <T extends (typeof RESOURCE_TYPES)[number], I extends z.ZodType>(type: T, id: I) =>
  z.object({ resource_type: z.literal(type), resource_id: id, ...shareFields }).strict();
/** One option per resource type, so each `resource_id` is checked as what its table stores. */
export const createShareBody = z.discriminatedUnion(
  'resource_type',
  [
    shareOf('trace', clientId.describe('a trace id')),
    shareOf('session', sessionParams.shape.id.describe('a session id')),
    shareOf('request', uuidSchema.describe('a request id')),
    shareOf(
      'experiment_comparison',
      uuidListSchema(2, 5).describe('experiment ids a,b[,…] (2 to 5): the first is the baseline'),
    ),
    shareOf('stats_view', uuidSchema.describe('a saved filter of the stats view')),
  ],
  { error: (iss) => (iss.code === 'invalid_union' ? `must be one of ${RESOURCE_TYPES.join(', ')}` : undefined) },
);
export type CreateShareInput = z.output<typeof createShareBody>;
export const shareParams = uuidParams('id');
export const tokenParams = z.object({ token: z.string().max(200) });
export const shareSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    resource_type: z.enum(RESOURCE_TYPES),
    resource_id: z.string(),
    token_hint: z.string().describe('the first characters of the token'),
    expires_at: timestamp.nullable(),
    redact_bodies: z.boolean(),
    view_count: z.number().int(),
    last_viewed_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
    created_by: z.string().nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'Share' });
export const createdShareSchema = shareSchema
  .extend({ token: z.string().describe('shown once: store it'), url: z.string() })
  .meta({ id: 'CreatedShare' });
/** What a shared stats view shows of its saved filter: its name and parameters, never its owner. */
const sharedFilterSchema = z
  .object({
    name: z.string().describe("the saved filter's name"),
    filter: z
      .record(z.string(), z.union([z.string(), z.array(z.string())]))
      .describe(
        'its stats query parameters as the API takes them, e.g. {"model": "gpt-4o", "granularity": "day"} ' +
          '(numbers and booleans as text; the project is the share’s)',
      ),
  })
  .meta({ id: 'SharedSavedFilter' });
export const sharedSchema = z
  .object({
    resource_type: z.enum(RESOURCE_TYPES),
    resource: z.unknown(),
    saved_filter: sharedFilterSchema.optional().describe('stats_view only: the saved filter the view shows'),
    expires_at: timestamp.nullable(),
  })
  .meta({ id: 'SharedResource' });
