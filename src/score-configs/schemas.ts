import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { boolQuery, nameSchema, timestamp } from '../http/schemas';

/** Request and response contracts of /api/v1/score-configs (docs/scores.md). */
export const DATA_TYPES = ['numeric', 'categorical', 'boolean'] as const;
export type DataType = (typeof DATA_TYPES)[number];

const category = z.object({ label: z.string().trim().min(1).max(100), value: z.number().finite() }).strict();
const categories = z
  .array(category)
  .min(1)
  .max(100)
  .refine(
    (cs) => new Set(cs.map((c) => c.label)).size === cs.length && new Set(cs.map((c) => c.value)).size === cs.length,
    'labels and values must be unique',
  );
const bound = z.number().finite().nullable().optional();

export const createConfigBody = z
  .object({
    project_id: uuidSchema.optional().describe('required when the organization has more than one project'),
    name: nameSchema,
    data_type: z.enum(DATA_TYPES),
    min: bound.describe('numeric only: the lowest value allowed'),
    max: bound.describe('numeric only: the highest value allowed'),
    categories: categories.optional().describe('categorical only (required): the allowed {label, value} pairs'),
    description: z.string().max(2000).nullable().optional(),
  })
  .strict();
export type CreateConfigInput = z.infer<typeof createConfigBody>;

export const updateConfigBody = z
  .object({
    name: nameSchema.optional(),
    description: z.string().max(2000).nullable().optional(),
    is_archived: z.boolean().optional().describe('archived configs take no new scores and free their name'),
    min: bound,
    max: bound,
    categories: categories.optional().describe('only while no score uses the config'),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'send at least one field');
export type UpdateConfigInput = z.infer<typeof updateConfigBody>;

export const configParams = uuidParams('id');
export const listConfigsQuery = z
  .object({
    project_id: uuidSchema.optional(),
    data_type: z.enum(DATA_TYPES).optional(),
    include_archived: boolQuery.optional(),
  })
  .strict();
export const configQuery = z.object({ project_id: uuidSchema.optional() }).strict();

export const configSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    data_type: z.enum(DATA_TYPES),
    min: z.number().nullable(),
    max: z.number().nullable(),
    categories: z.array(z.object({ label: z.string(), value: z.number() })).nullable(),
    description: z.string().nullable(),
    is_archived: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ScoreConfig' });
export type ConfigView = z.infer<typeof configSchema>;
