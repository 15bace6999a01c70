import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { nameSchema, timestamp } from '../http/schemas';
import { storedFilterShape } from '../filters/stored';

// The target filters of online evaluation, shared with eval runs' targets (src/eval-runs imports
// evaluators, never the other way).
export const requestFilter = z
  .object(storedFilterShape)
  .strict()
  .optional()
  .describe('the analytics filter (as in alert rules)');
export const traceFilter = z
  .object({
    name: z.string().max(512).optional(),
    user_id: z.string().max(256).optional(),
    session_id: z.string().max(256).optional(),
  })
  .strict()
  .optional();

/** Online evaluation of an evaluator: new matching requests (as logged) or traces (as they complete), sampled. */
const sampling = z.number().min(0).max(1).describe('the share of matching targets scored (deterministic per target)');
const onlineSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('requests'), filter: requestFilter, sampling_rate: sampling }).strict(),
  z.object({ kind: z.literal('traces'), filter: traceFilter, sampling_rate: sampling }).strict(),
]);
export type OnlineConfig = z.infer<typeof onlineSchema>;

/** Request and response contracts of /api/v1/evaluators (docs/evals.md). */
const field = z
  .enum(['output', 'input'])
  .default('output')
  .describe('the text evaluated: the target’s output (default) or input');
const jsonPath = z
  .string()
  .min(1)
  .max(500)
  .regex(/^\$/, 'a JSONPath starting with $')
  .describe('JSONPath into {input, output, metadata} of the target');
const expected = { expected: z.string().max(100_000).optional(), expected_path: jsonPath.optional() };
const oneExpected = (c: { expected?: string | undefined; expected_path?: string | undefined }) =>
  (c.expected === undefined) !== (c.expected_path === undefined);

/** Providers a judge can call: Anthropic's Messages API and the OpenAI-compatible chat completions of the rest. */
const JUDGE_PROVIDERS = [
  'openai',
  'anthropic',
  'mistral',
  'groq',
  'deepseek',
  'xai',
  'together',
  'openrouter',
  'ollama',
] as const;

export const evaluatorConfig = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('regex'),
    config: z
      .object({
        pattern: z.string().min(1).max(1000),
        flags: z
          .string()
          .regex(/^[imsu]*$/)
          .optional(),
        field,
      })
      .strict(),
  }),
  z.object({
    type: z.literal('contains'),
    config: z
      .object({ value: z.string().min(1).max(10_000), case_sensitive: z.boolean().default(false), field })
      .strict(),
  }),
  z.object({
    type: z.literal('exact_match'),
    config: z
      .object({ ...expected, trim: z.boolean().default(true), field })
      .strict()
      .refine(oneExpected, 'send expected or expected_path'),
  }),
  z.object({
    type: z.literal('json_schema'),
    config: z.object({ schema: z.record(z.string(), z.unknown()), field }).strict(),
  }),
  z.object({
    type: z.literal('levenshtein'),
    config: z
      .object({ ...expected, field })
      .strict()
      .refine(oneExpected, 'send expected or expected_path'),
  }),
  z.object({ type: z.literal('latency'), config: z.object({ max_ms: z.number().positive() }).strict() }),
  z.object({ type: z.literal('cost'), config: z.object({ max_usd: z.number().positive() }).strict() }),
  z.object({
    type: z.literal('llm_judge'),
    config: z
      .object({
        provider: z.enum(JUDGE_PROVIDERS),
        model: z.string().min(1).max(200),
        template: z
          .string()
          .min(1)
          .max(50_000)
          .describe('with {{input}}, {{output}}, {{expected}}, {{metadata.<key>}} and any `variables` name'),
        variables: z
          .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), jsonPath)
          .optional()
          .describe('extra template variables mapped from the target by JSONPath'),
        ...expected,
        output: z.discriminatedUnion('type', [
          z.object({ type: z.literal('numeric'), min: z.number().finite(), max: z.number().finite() }).strict(),
          z.object({ type: z.literal('boolean') }).strict(),
          z
            .object({ type: z.literal('categorical'), categories: z.array(z.string().min(1).max(100)).min(2).max(50) })
            .strict(),
        ]),
        temperature: z.number().min(0).max(2).default(0),
        max_tokens: z.number().int().min(16).max(4096).default(512),
      })
      .strict(),
  }),
]);
export type EvaluatorConfig = z.infer<typeof evaluatorConfig>;
const EVALUATOR_TYPES = [
  'llm_judge',
  'regex',
  'contains',
  'exact_match',
  'json_schema',
  'levenshtein',
  'latency',
  'cost',
] as const;

const common = {
  project_id: uuidSchema.optional().describe('required when the organization has more than one project (JWT)'),
  name: nameSchema.describe('the scores it writes carry this name'),
  description: z.string().max(2000).nullable().optional(),
  score_config_id: uuidSchema
    .nullable()
    .optional()
    .describe('scores are checked against this config; its data type must be the evaluator’s'),
  online: onlineSchema
    .nullable()
    .optional()
    .describe('score live traffic: new matching requests or completed traces, sampled; null: off'),
};
const withCommon = <T extends z.ZodObject>(o: T) => o.extend(common).strict();
const [v0, v1, v2, v3, v4, v5, v6, v7] = evaluatorConfig.options;
export const createEvaluatorBody = z.discriminatedUnion('type', [
  withCommon(v0),
  withCommon(v1),
  withCommon(v2),
  withCommon(v3),
  withCommon(v4),
  withCommon(v5),
  withCommon(v6),
  withCommon(v7),
]);
export const updateEvaluatorBody = z
  .object({
    name: nameSchema.optional(),
    description: z.string().max(2000).nullable().optional(),
    score_config_id: uuidSchema.nullable().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    online: onlineSchema.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'send at least one field');
export type CreateEvaluatorInput = z.infer<typeof createEvaluatorBody>;
export type UpdateEvaluatorInput = z.infer<typeof updateEvaluatorBody>;

export const evaluatorParams = uuidParams('id');
export const evaluatorQuery = z.object({ project_id: uuidSchema.optional() }).strict();
export const listEvaluatorsQuery = z
  .object({ project_id: uuidSchema.optional(), type: z.enum(EVALUATOR_TYPES).optional() })
  .strict();

export const evaluatorSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    type: z.enum(EVALUATOR_TYPES),
    config: z.record(z.string(), z.unknown()),
    score_data_type: z.enum(['numeric', 'categorical', 'boolean']).describe('what its scores are'),
    score_config_id: z.uuid().nullable(),
    online: z.record(z.string(), z.unknown()).nullable().describe('online evaluation settings; null: off'),
    online_run_id: z.uuid().nullable().describe('the rolling eval run of its online scores (GET /eval-runs/:id)'),
    description: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Evaluator' });
export type EvaluatorView = z.infer<typeof evaluatorSchema>;

/** POST /evaluators/preview: the create body without `name`, and the target evaluated (docs/evals.md). */
const previewTarget = z
  .union([
    z.object({ request_id: uuidSchema }).strict(),
    z
      .object({
        trace_id: z.string().trim().min(1).max(128),
        span_id: z.string().trim().min(1).max(128).optional().describe('a span of the trace: its input and output'),
      })
      .strict(),
  ])
  .describe('the request, trace or span evaluated (in the caller’s projects)');
const previewOf = <T extends z.ZodObject>(o: T) =>
  withCommon(o).omit({ name: true }).extend({ target: previewTarget }).strict();
export const previewEvaluatorBody = z.discriminatedUnion('type', [
  previewOf(v0),
  previewOf(v1),
  previewOf(v2),
  previewOf(v3),
  previewOf(v4),
  previewOf(v5),
  previewOf(v6),
  previewOf(v7),
]);
export type PreviewEvaluatorInput = z.infer<typeof previewEvaluatorBody>;
export type PreviewTarget = z.infer<typeof previewTarget>;

const excerpt = z.string().describe('the text the evaluator read, cut at 2,000 characters');
export const evaluatorPreviewSchema = z
  .object({
    data_type: z.enum(['numeric', 'categorical', 'boolean']),
    value: z.number().nullable().describe('as the score would have it'),
    string_value: z.string().nullable(),
    comment: z.string().nullable(),
    judge: z
      .object({ request_id: z.uuid(), cost_usd: z.number().nullable() })
      .nullable()
      .describe('the llm_judge call made (a request row of the project); null for the other types'),
    target: z.object({
      type: z.enum(['request', 'trace', 'span']),
      id: z.string().describe('the request id, trace id or span id'),
      trace_id: z.string().nullable(),
      project_id: z.uuid(),
      input: excerpt,
      output: excerpt,
      latency_ms: z.number().nullable(),
      cost_usd: z.number().nullable(),
    }),
  })
  .meta({ id: 'EvaluatorPreview' });
export type EvaluatorPreview = z.infer<typeof evaluatorPreviewSchema>;
