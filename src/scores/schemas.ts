import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { cursorQuery, limitQuery } from '../http/pagination';
import { isoDateTime, timestamp } from '../http/schemas';
import { DATA_TYPES } from '../score-configs/schemas';

/** Request and response contracts of /api/v1/scores (docs/scores.md). */
const SOURCES = ['api', 'eval', 'annotation'] as const;
const TARGETS = ['request', 'trace', 'span', 'session', 'experiment_item'] as const;
const text = (max: number) => z.string().trim().min(1).max(max);

export const createScoreBody = z
  .object({
    id: uuidSchema.optional().describe('client-chosen: writing the same id again updates that score (idempotent)'),
    project_id: uuidSchema
      .optional()
      .describe('needed only when the target exists in more than one project of the organization'),
    name: text(200).optional().describe('defaults to the config’s name; required without config_id'),
    data_type: z
      .enum(DATA_TYPES)
      .optional()
      .describe('defaults to the config’s; without a config, numeric when value is given, else categorical'),
    value: z.number().finite().optional(),
    string_value: z.string().max(1000).optional().describe('a category label, or true/false for booleans'),
    comment: z.string().max(10_000).nullable().optional(),
    config_id: uuidSchema.optional(),
    request_id: uuidSchema.optional(),
    trace_id: text(128).optional(),
    span_id: text(128).optional().describe('with trace_id: the score targets that span'),
    session_id: text(256).optional(),
    experiment_id: uuidSchema
      .optional()
      .describe('with experiment_item_id (and repetition): an experiment’s run of a dataset item'),
    experiment_item_id: text(128).optional(),
    repetition: z.number().int().min(0).max(99).optional(),
  })
  .strict()
  .refine((b) => b.value !== undefined || b.string_value !== undefined, 'send value or string_value')
  .refine(
    (b) => [b.request_id, b.trace_id, b.session_id, b.experiment_id].filter((v) => v !== undefined).length === 1,
    'name exactly one target: request_id, trace_id (with span_id for a span), session_id, ' +
      'or experiment_id with experiment_item_id',
  )
  .refine(
    (b) => (b.experiment_id === undefined) === (b.experiment_item_id === undefined),
    'experiment_id and experiment_item_id go together',
  )
  .refine((b) => b.span_id === undefined || b.trace_id !== undefined, 'span_id needs its trace_id');
export type CreateScoreInput = z.infer<typeof createScoreBody>;

export const scoreParams = uuidParams('id');
export const scoreQuery = z.object({ project_id: uuidSchema.optional() }).strict();
export const listScoresQuery = z
  .object({
    project_id: uuidSchema.optional(),
    name: z.string().max(200).optional(),
    source: z.enum(SOURCES).optional(),
    data_type: z.enum(DATA_TYPES).optional(),
    config_id: uuidSchema.optional(),
    target_type: z.enum(TARGETS).optional(),
    request_id: uuidSchema.optional(),
    trace_id: z.string().max(128).optional(),
    span_id: z.string().max(128).optional(),
    session_id: z.string().max(256).optional(),
    experiment_id: uuidSchema.optional(),
    from: isoDateTime.optional().describe('created at or after'),
    to: isoDateTime.optional().describe('created before'),
    limit: limitQuery(50, 200),
    cursor: cursorQuery.optional(),
  })
  .strict();
export type ListScoresParams = z.output<typeof listScoresQuery>;

export const scoreSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    data_type: z.enum(DATA_TYPES),
    value: z.number().nullable().describe('numeric value; the category’s value; 1 or 0 for booleans'),
    string_value: z.string().nullable().describe('the category label; "true"/"false" for booleans'),
    source: z.enum(SOURCES),
    comment: z.string().nullable(),
    config_id: z.uuid().nullable(),
    target_type: z.enum(TARGETS),
    request_id: z.uuid().nullable(),
    trace_id: z.string().nullable(),
    span_id: z.string().nullable(),
    session_id: z.string().nullable(),
    experiment_id: z.uuid().nullable(),
    experiment_item_id: z.string().nullable(),
    experiment_repetition: z.number().int().nullable(),
    created_by: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Score' });
export type ScoreView = z.infer<typeof scoreSchema>;
