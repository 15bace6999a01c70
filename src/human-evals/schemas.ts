import { z } from 'zod';
import { targetSchema } from '../eval-runs/schemas';
import { uuidParams, uuidSchema } from '../http/ids';
import { nameSchema, timestamp } from '../http/schemas';

/** Contracts of /api/v1/human-evals and /api/v1/annotation/queue (docs/human-evals.md). */
const targetRef = z.union([
  z.object({ request_id: uuidSchema }).strict(),
  z.object({ trace_id: z.string().min(1).max(128), span_id: z.string().min(1).max(128).optional() }).strict(),
  z.object({ session_id: z.string().min(1).max(256) }).strict(),
  z
    .object({
      experiment_id: uuidSchema,
      experiment_item_id: z.string().min(1).max(128),
      repetition: z.number().int().min(0).max(9).default(0),
    })
    .strict(),
]);
export type TargetRef = z.infer<typeof targetRef>;

export const createHumanEvalBody = z
  .object({
    project_id: uuidSchema.optional(),
    name: nameSchema,
    instructions: z.string().max(20_000).nullable().optional(),
    score_config_ids: z.array(uuidSchema).min(1).max(20).describe('what each reviewer fills for each item'),
    reviewers: z
      .array(z.union([z.object({ user_id: uuidSchema }).strict(), z.object({ email: z.email().max(320) }).strict()]))
      .max(200)
      .default([])
      .describe('members, or e-mails of invited members; none: any member of the organization'),
    reviewers_per_item: z.number().int().min(1).max(10).default(1),
    lease_seconds: z.number().int().min(30).max(86_400).default(600).describe('how long a reservation holds an item'),
    targets: z.union([
      z.object({ items: z.array(targetRef).min(1).max(1000) }).strict(),
      z.object({ source: targetSchema }).strict(),
    ]),
  })
  .strict();
export type CreateHumanEvalInput = z.infer<typeof createHumanEvalBody>;
export const addItemsBody = createHumanEvalBody.pick({ targets: true }).strict();
export type AddItemsInput = z.infer<typeof addItemsBody>;
export const updateHumanEvalBody = z
  .object({
    name: nameSchema.optional(),
    instructions: z.string().max(20_000).nullable().optional(),
    status: z.enum(['open', 'closed']).optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'send at least one field');

export const humanEvalParams = uuidParams('id');
export const projectQuery = z.object({ project_id: uuidSchema.optional() }).strict();
export const queueQuery = z
  .object({
    human_eval_id: uuidSchema.optional().describe('only this campaign (default: any open campaign you review)'),
  })
  .strict();
const slotRef = { human_eval_id: uuidSchema, target_key: z.string().min(1).max(600) };
export const submitBody = z
  .object({
    ...slotRef,
    scores: z
      .array(
        z
          .object({
            config_id: uuidSchema,
            value: z.number().finite().optional(),
            string_value: z.string().max(1000).optional(),
            comment: z.string().max(10_000).nullable().optional(),
          })
          .strict(),
      )
      .min(1)
      .max(20),
  })
  .strict();
export const slotBody = z.object(slotRef).strict();

const progress = z.object({
  slots: z.number().int(),
  done: z.number().int(),
  reserved: z.number().int(),
  open: z.number().int(),
  by_reviewer: z.array(z.object({ reviewer: z.string(), done: z.number().int() })),
});
export const humanEvalSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    instructions: z.string().nullable(),
    score_config_ids: z.array(z.uuid()),
    reviewers: z.array(z.string()),
    reviewers_per_item: z.number().int(),
    lease_seconds: z.number().int(),
    status: z.enum(['open', 'closed']),
    items: z.number().int(),
    progress,
    created_at: timestamp,
  })
  .meta({ id: 'HumanEval' });
export const queueItemSchema = z
  .object({
    human_eval: z.object({ id: z.uuid(), name: z.string(), instructions: z.string().nullable() }),
    target_key: z.string(),
    target: z.record(z.string(), z.unknown()),
    content: z.object({ input: z.unknown(), output: z.unknown() }).describe('what to judge'),
    score_configs: z.array(z.record(z.string(), z.unknown())),
    reserved_until: timestamp,
  })
  .nullable()
  .meta({ id: 'AnnotationQueueItem', description: 'null when nothing is left for you' });
export const agreementSchema = z
  .object({
    configs: z.array(
      z.object({
        config_id: z.uuid(),
        name: z.string(),
        data_type: z.string(),
        items_rated: z.number().int(),
        ratings: z.number().int(),
        fleiss_kappa: z.number().nullable(),
        krippendorff_alpha: z.number().nullable().describe('nominal for categories, interval for numbers'),
        judge: z
          .object({
            evaluator_scores: z.number().int(),
            kappa: z.number().nullable(),
            percent_agreement: z.number().nullable(),
            correlation: z.number().nullable(),
            mean_abs_diff: z.number().nullable(),
          })
          .nullable(),
      }),
    ),
  })
  .meta({ id: 'HumanEvalAgreement' });
