import { z } from 'zod';
import { targetSchema } from '../eval-runs/schemas';
import { subjectSchema } from '../experiments/schemas';
import { uuidParams, uuidSchema } from '../http/ids';
import { isoDateTime, nameSchema, timestamp } from '../http/schemas';

/** Contracts of /api/v1/prompt-experiments (docs/experiments.md#prompt-experiments). */
const promptSubject = subjectSchema.options[0];
export const createPromptExperimentBody = z
  .object({
    project_id: uuidSchema.optional(),
    name: nameSchema,
    variants: z
      .array(z.object({ label: z.string().min(1).max(100).optional(), subject: promptSubject }).strict())
      .min(1)
      .max(8),
    items: z.union([
      z
        .object({
          dataset_id: uuidSchema,
          dataset_version: isoDateTime.optional(),
          split: z.string().max(32).optional(),
        })
        .strict(),
      z
        .object({ production: targetSchema, sample: z.enum(['newest', 'random']).default('random') })
        .strict()
        .describe('a production sample, kept as a new dataset'),
    ]),
    evaluator_ids: z.array(uuidSchema).max(20).default([]),
    repetitions: z.number().int().min(1).max(10).default(1),
    concurrency: z.number().int().min(1).max(32).default(8),
  })
  .strict();
export type CreatePromptExperimentInput = z.infer<typeof createPromptExperimentBody>;
export const promptExperimentParams = uuidParams('id');
export const projectQuery = z.object({ project_id: uuidSchema.optional() }).strict();

export const gridSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    status: z.enum(['running', 'completed', 'cancelled', 'failed']),
    dataset_id: z.uuid(),
    dataset_version: timestamp,
    variants: z.array(
      z.object({
        index: z.number().int(),
        label: z.string(),
        experiment_id: z.uuid(),
        status: z.string(),
        scores: z.array(z.object({ name: z.string(), mean: z.number().nullable(), count: z.number().int() })),
        cost_usd: z.number(),
        latency_p50_ms: z.number().nullable(),
      }),
    ),
    rows: z
      .array(
        z.object({
          item_id: z.string(),
          input: z.unknown(),
          expected_output: z.unknown(),
          cells: z.array(z.object({ outputs: z.array(z.unknown()), scores: z.record(z.string(), z.number()) })),
        }),
      )
      .describe('items × variants'),
    winners: z
      .array(z.object({ name: z.string(), variant: z.number().int(), label: z.string(), mean: z.number() }))
      .describe('per score name: the variant with the best mean (ties: the cheaper)'),
    created_at: timestamp,
  })
  .meta({ id: 'PromptExperiment' });
