import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { isoDateTime, timestamp } from '../http/schemas';

/** Contracts of /api/v1/shares and /share/:token (docs/shares.md). */
export const RESOURCE_TYPES = ['trace', 'session', 'request', 'experiment_comparison', 'stats_view'] as const;
export const createShareBody = z
  .object({
    project_id: uuidSchema.optional(),
    resource_type: z.enum(RESOURCE_TYPES),
    resource_id: z.string().min(1).max(300).describe('a trace, session or request id; experiment ids a,b (comparison); a saved filter of the stats view'),
    expires_at: isoDateTime.nullable().optional(),
    redact_bodies: z.boolean().default(false).describe('inputs and outputs shown as [redacted]'),
  })
  .strict();
export const shareParams = uuidParams('id');
export const tokenParams = z.object({ token: z.string().max(200) });
export const shareSchema = z
  .object({
    id: z.uuid(), project_id: z.uuid(), resource_type: z.enum(RESOURCE_TYPES), resource_id: z.string(), token_hint: z.string().describe('the first characters of the token'),
    expires_at: timestamp.nullable(), redact_bodies: z.boolean(), view_count: z.number().int(), last_viewed_at: timestamp.nullable(), revoked_at: timestamp.nullable(),
    created_by: z.string().nullable(), created_at: timestamp,
  })
  .meta({ id: 'Share' });
export const createdShareSchema = shareSchema.extend({ token: z.string().describe('shown once: store it'), url: z.string() }).meta({ id: 'CreatedShare' });
export const sharedSchema = z.object({ resource_type: z.enum(RESOURCE_TYPES), resource: z.unknown(), expires_at: timestamp.nullable() }).meta({ id: 'SharedResource' });
