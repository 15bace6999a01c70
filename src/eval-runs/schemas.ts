import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { cursorQuery, limitQuery } from '../http/pagination';
import { isoDateTime, timestamp } from '../http/schemas';
import { requestFilter, traceFilter } from '../evaluators/schemas';

/** Request and response contracts of /api/v1/eval-runs (docs/evals.md). */
const RUN_STATUSES = ['pending', 'running', 'completed', 'cancelled', 'failed'] as const;
const ITEM_STATUSES = ['pending', 'completed', 'error', 'delayed'] as const;

export const targetSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('requests'),
      from: isoDateTime,
      to: isoDateTime,
      limit: z
        .number()
        .int()
        .min(1)
        .max(10_000)
        .default(1000)
        .describe('the newest matching requests, at most this many'),
      filter: requestFilter,
    })
    .strict(),
  z
    .object({
      kind: z.literal('traces'),
      from: isoDateTime,
      to: isoDateTime,
      limit: z.number().int().min(1).max(10_000).default(1000),
      filter: traceFilter,
    })
    .strict(),
]);

export type RunTarget = z.infer<typeof targetSchema>;

export const createRunBody = z
  .object({
    project_id: uuidSchema.optional(),
    evaluator_ids: z.array(uuidSchema).min(1).max(20),
    target: targetSchema,
    concurrency: z.number().int().min(1).max(32).default(8).describe('targets evaluated at once'),
  })
  .strict();
export type CreateRunInput = z.infer<typeof createRunBody>;

export const runParams = uuidParams('id');
export const runQuery = z.object({ project_id: uuidSchema.optional() }).strict();
export const listRunsQuery = z.object({ project_id: uuidSchema.optional(), limit: limitQuery(50, 200) }).strict();
export const resultsQuery = z
  .object({
    project_id: uuidSchema.optional(),
    status: z.enum(ITEM_STATUSES).optional(),
    limit: limitQuery(100, 1000),
    cursor: cursorQuery.optional(),
  })
  .strict();

export const runSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    status: z.enum(RUN_STATUSES),
    online: z.boolean().describe('the rolling run of an online evaluator'),
    evaluator_ids: z.array(z.uuid()),
    target: z.record(z.string(), z.unknown()),
    workflow_id: z.string().describe('the Temporal workflow (search attributes OrganizationId, ProjectId)'),
    total: z
      .number()
      .int()
      .nullable()
      .describe('items: targets × evaluators; null until the run has listed its targets'),
    counts: z.object({
      pending: z.number().int(),
      completed: z.number().int(),
      error: z.number().int(),
      delayed: z.number().int(),
    }),
    progress: z.number().describe('finished items (completed or error) / total'),
    scores: z
      .array(z.object({ evaluator_id: z.uuid(), count: z.number().int(), average: z.number().nullable() }))
      .describe('per evaluator: scored items and their average value'),
    judge_cost_usd: z
      .number()
      .describe('cost of every judge call of the run, whatever its verdict (malformed ones included)'),
    error: z.string().nullable(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
  })
  .meta({ id: 'EvalRun' });
export type RunView = z.infer<typeof runSchema>;

export const resultSchema = z
  .object({
    target_id: z.string(),
    evaluator_id: z.uuid(),
    status: z.enum(ITEM_STATUSES),
    score_id: z.uuid().nullable(),
    value: z.number().nullable(),
    string_value: z.string().nullable(),
    error: z.string().nullable(),
    judge_request_id: z.uuid().nullable(),
    updated_at: timestamp,
  })
  .meta({ id: 'EvalRunResult' });
