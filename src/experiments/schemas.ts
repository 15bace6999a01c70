import { z } from 'zod';
import { uuidListSchema, uuidParams, uuidSchema } from '../http/ids';
import { cursorQuery, limitQuery } from '../http/pagination';
import { isoDateTime, nameSchema, timestamp } from '../http/schemas';
import { PROVIDER_SLUGS } from '../keys/provider-keys';

/** Request and response contracts of /api/v1/experiments (docs/experiments.md). */
export const subjectSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('prompt'),
      prompt: z
        .string()
        .min(1)
        .max(300)
        .optional()
        .describe('<name>@<version|latest|label> or a prompt-version id: resolved once, at creation'),
      template: z
        .union([
          z.string().min(1).max(1_000_000),
          z
            .array(
              z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(1_000_000) }).strict(),
            )
            .min(1)
            .max(200),
        ])
        .optional()
        .describe('an inline prompt instead of a stored one'),
      provider: z.enum(PROVIDER_SLUGS).refine((p) => p !== 'gemini', 'gemini is not offered for experiments yet'),
      model: z.string().min(1).max(200).optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
    })
    .strict()
    .refine((s) => (s.prompt === undefined) !== (s.template === undefined), 'send prompt or template'),
  z
    .object({ kind: z.literal('external') })
    .strict()
    .describe('your application posts each output to POST /experiments/:id/outputs'),
]);

export const createExperimentBody = z
  .object({
    project_id: uuidSchema.optional(),
    name: nameSchema,
    dataset_id: uuidSchema,
    dataset_version: isoDateTime.optional().describe('default: the dataset’s latest version'),
    split: z.string().max(32).optional(),
    subject: subjectSchema,
    evaluator_ids: z.array(uuidSchema).max(20).default([]),
    repetitions: z.number().int().min(1).max(10).default(1),
    concurrency: z.number().int().min(1).max(32).default(8),
  })
  .strict();
export type CreateExperimentInput = z.infer<typeof createExperimentBody>;

export const outputsBody = z
  .object({
    outputs: z
      .array(
        z
          .object({
            item_id: z.string().min(1).max(128),
            repetition: z.number().int().min(0).max(9).default(0),
            output: z.unknown().refine((v) => v !== undefined, 'output is required'),
            trace_id: z.string().max(128).optional(),
            latency_ms: z.number().min(0).optional(),
            cost_usd: z.number().min(0).optional(),
            error: z.string().max(2000).optional().describe('the application failed on this item'),
          })
          .strict(),
      )
      .min(1)
      .max(100),
  })
  .strict();
export type OutputsInput = z.infer<typeof outputsBody>;

export const experimentParams = uuidParams('id');
export const experimentQuery = z.object({ project_id: uuidSchema.optional() }).strict();
export const listExperimentsQuery = z
  .object({ project_id: uuidSchema.optional(), dataset_id: uuidSchema.optional(), limit: limitQuery(50, 200) })
  .strict();
export const itemsQuery = z
  .object({
    project_id: uuidSchema.optional(),
    status: z.enum(['pending', 'completed', 'error']).optional(),
    limit: limitQuery(100, 1000),
    cursor: cursorQuery.optional(),
  })
  .strict();
export const compareQuery = z
  .object({
    project_id: uuidSchema.optional(),
    ids: uuidListSchema(2, 5).describe('2 to 5 experiment ids, comma-separated; the first is the baseline'),
    regression_threshold: z.coerce
      .number()
      .min(0)
      .default(0)
      .describe('an item regressed when its mean score fell by more than this'),
  })
  .strict();

const scoreMean = z.object({ name: z.string(), mean: z.number().nullable(), count: z.number().int() });
export const experimentSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    dataset_id: z.uuid(),
    dataset_version: timestamp,
    subject: z.record(z.string(), z.unknown()),
    evaluator_ids: z.array(z.uuid()),
    repetitions: z.number().int(),
    status: z.enum(['running', 'awaiting_outputs', 'completed', 'cancelled', 'failed']),
    workflow_id: z.string().nullable(),
    counts: z.object({ pending: z.number().int(), completed: z.number().int(), error: z.number().int() }),
    scores: z.array(scoreMean).describe('per score name: the mean over item runs'),
    cost_usd: z.number(),
    latency_p50_ms: z.number().nullable(),
    latency_p95_ms: z.number().nullable(),
    error: z.string().nullable(),
    created_at: timestamp,
    finished_at: timestamp.nullable(),
  })
  .meta({ id: 'Experiment' });
export type ExperimentView = z.infer<typeof experimentSchema>;

export const experimentItemSchema = z
  .object({
    item_id: z.string(),
    repetition: z.number().int(),
    status: z.enum(['pending', 'completed', 'error']),
    output: z.unknown(),
    request_id: z.uuid().nullable(),
    trace_id: z.string().nullable(),
    latency_ms: z.number().nullable(),
    cost_usd: z.number().nullable(),
    error: z.string().nullable(),
    scores: z.record(z.string(), z.number().nullable()).describe('score name → value'),
  })
  .meta({ id: 'ExperimentItem' });
