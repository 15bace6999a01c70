import { z } from 'zod';
import { uuidParams, uuidSchema } from '../http/ids';
import { timestamp } from '../http/schemas';
import { PROMPT_LABEL, PROMPT_NAME } from './ref';

const promptNameSchema = z
  .string()
  .regex(PROMPT_NAME, 'letters, digits, . _ - / (max 128), starting with a letter or digit');

const labelsSchema = z
  .array(z.string().regex(PROMPT_LABEL, 'lower-case letters, digits, _ and -, starting with a letter; not latest'))
  .max(20);
export const labelsBody = z
  .object({ labels: labelsSchema.describe('the version’s labels, replacing the ones it had') })
  .strict();
const message = z.object({ role: z.string().min(1).max(64), content: z.unknown() }).passthrough();
export const versionInputSchema = z
  .object({
    /** The template: a string, or a list of chat messages. */
    template: z.union([z.string().min(1).max(1_000_000), z.array(message).min(1).max(1000)]),
    model: z.string().min(1).max(200).nullable().optional(),
    parameters: z.record(z.string(), z.unknown()).nullable().optional(),
    commit_message: z.string().max(2000).nullable().optional(),
    labels: labelsSchema.optional().describe('labels this version takes (moved from the version holding them)'),
  })
  .strict();
export type VersionInput = z.infer<typeof versionInputSchema>;

export const createPromptSchema = z
  .object({
    project_id: uuidSchema,
    name: promptNameSchema,
    description: z.string().max(5000).nullable().optional(),
    /** Optional first version, created with the prompt. */
    version: versionInputSchema.optional(),
  })
  .strict();

export const promptParams = uuidParams('id');
/** The version is checked in the handler: a malformed one is a 400, as it always was, not a 404. */
export const promptVersionParams = z.object({ id: uuidSchema, version: z.string() });
export const versionSelector = z.object({
  version: z.string().regex(/^([1-9]\d{0,8}|latest)$/, 'a positive integer or latest'),
});
export const projectQuery = z.object({ project_id: uuidSchema.optional() });
export const resolveQuery = z.object({ ref: z.string().min(1).max(300), project_id: uuidSchema.optional() });

export const promptVersionSchema = z
  .object({
    id: z.uuid(),
    prompt_id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    version: z.number().int(),
    template: z.unknown(),
    model: z.string().nullable(),
    parameters: z.record(z.string(), z.unknown()).nullable(),
    commit_message: z.string().nullable(),
    created_by: z.uuid().nullable(),
    created_at: timestamp,
    labels: z
      .array(z.string())
      .describe('e.g. production: `x-service-prompt-version: <name>@<label>` resolves to this version'),
    variables: z.array(z.string()).describe('the {{variables}} the template uses'),
  })
  .meta({ id: 'PromptVersion' });

export const promptSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    latest_version: z.number().int().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Prompt' });

export const promptWithVersionsSchema = promptSchema
  .extend({ versions: z.array(promptVersionSchema) })
  .meta({ id: 'PromptWithVersions' });

export interface PromptView {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  latest_version: number | null;
  created_at: string;
  updated_at: string;
}

export interface VersionView {
  id: string;
  prompt_id: string;
  project_id: string;
  name: string;
  version: number;
  template: unknown;
  model: string | null;
  parameters: Record<string, unknown> | null;
  commit_message: string | null;
  created_by: string | null;
  created_at: string;
  labels: string[];
  variables: string[];
}
