import { z } from 'zod';
import { uuidSchema } from '../http/ids';
import { PROVIDER_SLUGS } from '../keys/provider-keys';

/** Contracts of POST /api/v1/prompts/playground/run (docs/evals.md#prompt-playground). */
const message = z
  .object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(1_000_000) })
  .strict();
const variant = z
  .object({
    prompt: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe('<name>@<version>, <name>@latest, <name>@<label> or a prompt-version id'),
    template: z
      .union([z.string().min(1).max(1_000_000), z.array(message).min(1).max(200)])
      .optional()
      .describe('an inline prompt instead of a stored one'),
    provider: z.enum(PROVIDER_SLUGS).refine((p) => p !== 'gemini', 'gemini is not offered in the playground yet'),
    model: z.string().min(1).max(200).optional().describe('default: the prompt version’s model'),
    parameters: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('model parameters (temperature, max_tokens, …) over the version’s'),
  })
  .strict()
  .refine((v) => (v.prompt === undefined) !== (v.template === undefined), 'send prompt or template');

export const playgroundBody = z
  .object({
    project_id: uuidSchema.optional(),
    variables: z.record(z.string(), z.string().max(1_000_000)).default({}),
    variants: z.array(variant).min(1).max(4).describe('run side by side, concurrently'),
    stream: z
      .boolean()
      .default(false)
      .describe('answer as server-sent events: delta events per variant, then a result event each'),
  })
  .strict();
export type PlaygroundInput = z.infer<typeof playgroundBody>;

const variantResultSchema = z.object({
  index: z.number().int(),
  prompt_version_id: z.uuid().nullable(),
  provider: z.string(),
  model: z.string(),
  output: z.string(),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
  cost_usd: z.number().nullable(),
  latency_ms: z.number(),
  request_id: z.uuid().describe('the call in the request log'),
  error: z
    .object({ status: z.number().int(), message: z.string() })
    .nullable()
    .describe('the provider refused the call'),
});
export const playgroundAnswerSchema = z
  .object({ variants: z.array(variantResultSchema) })
  .meta({ id: 'PlaygroundRun' });
export type VariantResult = z.infer<typeof variantResultSchema>;
