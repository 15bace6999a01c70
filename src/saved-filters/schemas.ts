import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { nameSchema, timestamp } from '../http/schemas';

/** Contracts of /api/v1/saved-filters (docs/saved-filters.md). */
const VIEWS = ['requests', 'traces', 'sessions', 'users', 'stats'] as const;
export type View = (typeof VIEWS)[number];
const param = z.union([z.string().max(2000), z.number().finite(), z.boolean(), z.array(z.string().max(2000)).max(20)]);
const filter = z
  .record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'a query parameter name'), param)
  .refine((f) => Object.keys(f).length <= 40, 'at most 40 parameters')
  .refine((f) => !('saved_filter_id' in f) && !('cursor' in f), 'a saved filter cannot name another one or a cursor')
  .describe(
    'the view’s query parameters as the API takes them (e.g. {"model": "gpt-4o", "status": "5xx"}); ' +
      'checked by the view when used',
  );

export const createSavedFilterBody = z
  .object({
    project_id: uuidSchema.optional(),
    name: nameSchema,
    view: z.enum(VIEWS),
    filter,
    columns: z.array(z.string().max(64)).max(50).nullable().optional(),
    sort: z.string().max(64).nullable().optional(),
    visibility: z.enum(['private', 'project']).default('private'),
  })
  .strict();
export const updateSavedFilterBody = z
  .object({
    name: nameSchema.optional(),
    filter: filter.optional(),
    columns: z.array(z.string().max(64)).max(50).nullable().optional(),
    sort: z.string().max(64).nullable().optional(),
    visibility: z.enum(['private', 'project']).optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'send at least one field');
export const savedFilterParams = uuidParams('id');
export const listSavedFiltersQuery = z
  .object({ project_id: uuidSchema.optional(), view: z.enum(VIEWS).optional() })
  .strict();
export const savedFilterSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    view: z.enum(VIEWS),
    filter: z.record(z.string(), z.unknown()),
    columns: z.array(z.string()).nullable(),
    sort: z.string().nullable(),
    visibility: z.enum(['private', 'project']),
    owner_id: z.uuid().nullable(),
    mine: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'SavedFilter' });
/** The query parameter every list and stats route takes in place of its filter. */
export const savedFilterIdParam = {
  saved_filter_id: uuidSchema
    .optional()
    .describe('a saved filter of this view (docs/saved-filters.md); explicit parameters override its values'),
};
