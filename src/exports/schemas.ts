import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { timestamp } from '../http/schemas';
import { RESOURCE_NAMES } from './resources';
import { FORMATS } from './writers';

export const exportParams = uuidParams('id');
export const exportQuery = z.object({ project_id: uuidSchema.optional() }).strict();
export const listExportsQuery = z
  .object({ project_id: uuidSchema.optional(), limit: z.coerce.number().int().min(1).max(200).default(50) })
  .strict();
export const signedQuery = z
  .object({ expires: z.coerce.number().int().min(0), signature: z.string().min(1).max(200) })
  .strict();

export const createExportBody = z
  .object({
    project_id: uuidSchema
      .optional()
      .describe('narrow the export to one project (default: every project of the organization)'),
    resource: z.enum(RESOURCE_NAMES),
    format: z.enum(FORMATS),
    filter: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        "the resource list's query parameters as JSON (GET /requests, /traces, /sessions, /scores; " +
          'dataset_items needs dataset_id, experiment_results experiment_id)',
      ),
    saved_filter_id: uuidSchema
      .optional()
      .describe(
        'a saved filter of the matching view (requests; traces and spans; sessions); `filter` values override it',
      ),
    columns: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(200)
      .optional()
      .describe('columns in this order (default: every column; body columns only with include_bodies)'),
    include_bodies: z
      .boolean()
      .default(false)
      .describe(
        'request/response bodies, trace and span inputs and outputs, as stored ' +
          '(log mode and masking applied at capture)',
      ),
  })
  .strict();
export type CreateExportInput = z.output<typeof createExportBody>;

export const exportSchema = z
  .object({
    id: z.uuid(),
    project_ids: z.array(z.uuid()),
    resource: z.enum(RESOURCE_NAMES),
    format: z.enum(FORMATS),
    filter: z.record(z.string(), z.unknown()).describe('the filter as applied (a saved filter merged in)'),
    columns: z.array(z.string()),
    include_bodies: z.boolean(),
    status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled', 'expired']),
    rows_written: z.number().int(),
    estimated_total: z
      .number()
      .int()
      .nullable()
      .describe('rows matching when the export started (null when counting was too slow or is not offered)'),
    progress: z.number().min(0).max(1).nullable(),
    bytes: z.number().int().nullable(),
    workflow_id: z.string(),
    error: z.string().nullable(),
    created_by: z.string().nullable(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    expires_at: timestamp.nullable().describe('when the file is deleted (EXPORT_TTL_HOURS after it was written)'),
    download_url: z.string().nullable().describe('GET with your token (completed exports)'),
    signed_url: z.string().nullable().describe('a link that needs no credentials, valid until signed_url_expires_at'),
    signed_url_expires_at: timestamp.nullable(),
  })
  .meta({ id: 'Export' });
export type ExportView = z.infer<typeof exportSchema>;
