import { z } from 'zod';
import { targetSchema } from '../eval-runs/schemas';
import { uuidParams, uuidSchema } from '../http/ids';
import { cursorQuery, limitQuery } from '../http/pagination';
import { isoDateTime, nameSchema, timestamp } from '../http/schemas';

/** Request and response contracts of /api/v1/datasets (docs/datasets.md). */
export const ITEM_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const split = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'lower-case letters, digits, _ and -')
  .describe('e.g. train, test');

export const createDatasetBody = z
  .object({
    project_id: uuidSchema.optional(),
    name: nameSchema,
    description: z.string().max(5000).nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export const updateDatasetBody = z
  .object({
    name: nameSchema.optional(),
    description: z.string().max(5000).nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'send at least one field');

export const itemInput = z
  .object({
    id: z
      .string()
      .regex(ITEM_ID, 'letters, digits, . _ : - (max 128)')
      .optional()
      .describe('client-chosen: writing the same id again updates the item'),
    input: z.unknown(),
    expected_output: z.unknown().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    source_request_id: uuidSchema.nullable().optional(),
    source_trace_id: z.string().max(128).nullable().optional(),
    source_span_id: z.string().max(128).nullable().optional(),
    split: split.nullable().optional(),
    status: z.enum(['active', 'archived']).optional(),
  })
  .strict()
  .refine((i) => i.input !== undefined, { message: 'input is required', path: ['input'] });
export type ItemInput = z.infer<typeof itemInput>;
export const addItemsBody = z.object({ items: z.array(itemInput).min(1).max(1000) }).strict();

export const fromProductionBody = z
  .object({
    source: targetSchema.describe('requests (the analytics filter) or traces, a range and a limit'),
    sample: z.enum(['newest', 'random']).default('newest').describe('random: a uniform sample of the matching targets'),
    split: split.optional(),
  })
  .strict();

export const datasetParams = uuidParams('id');
export const itemParams = z.object({ id: uuidSchema, itemId: z.string().regex(ITEM_ID) });
export const datasetQuery = z.object({ project_id: uuidSchema.optional() }).strict();
export const listItemsQuery = z
  .object({
    project_id: uuidSchema.optional(),
    version: isoDateTime.optional().describe('the dataset as it was at this version (default: the latest)'),
    split: split.optional(),
    status: z.enum(['active', 'archived', 'all']).default('active'),
    limit: limitQuery(100, 1000),
    cursor: cursorQuery.optional(),
  })
  .strict();
export type ListItemsParams = z.output<typeof listItemsQuery>;
export const uploadQuery = z.object({ project_id: uuidSchema.optional(), split: split.optional() }).strict();

export const datasetSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    latest_version: timestamp.nullable(),
    items: z.number().int().describe('active items at the latest version'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Dataset' });

export const itemSchema = z
  .object({
    id: z.string(),
    dataset_id: z.uuid(),
    version: timestamp.describe('the dataset version that last changed this item'),
    input: z.unknown(),
    expected_output: z.unknown(),
    metadata: z.record(z.string(), z.unknown()),
    source_request_id: z.uuid().nullable(),
    source_trace_id: z.string().nullable(),
    source_span_id: z.string().nullable(),
    split: z.string().nullable(),
    status: z.enum(['active', 'archived']),
  })
  .meta({ id: 'DatasetItem' });
export type ItemView = z.infer<typeof itemSchema>;

export const changeSchema = z
  .object({
    version: timestamp.nullable().describe('the new version; null when nothing changed'),
    added: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    errors: z
      .array(z.object({ row: z.number().int(), error: z.string() }))
      .describe('rows refused, by 1-based row (upload) or index (bulk)'),
  })
  .meta({ id: 'DatasetChange' });
export const versionSchema = z
  .object({
    version: timestamp,
    change: z.string(),
    added: z.number().int(),
    updated: z.number().int(),
    archived: z.number().int(),
    created_by: z.string().nullable(),
  })
  .meta({ id: 'DatasetVersion' });
