import { z } from 'zod';
import { uuidSchema } from '../http/ids';
import { secretInput, timestamp } from '../http/schemas';
import { PROVIDER_SLUGS } from './provider-keys';

const keyName = z.string().trim().min(1).max(200);
/** Lists may be narrowed to one project (a project of another organization is 404). */
export const projectQuery = z.object({ project_id: uuidSchema.optional() });

export const createApiKeyBody = z
  .object({
    project_id: uuidSchema,
    name: keyName.default('API key'),
    scope: z.enum(['full', 'public']).default('full'),
  })
  .strict();
export const updateApiKeyBody = z
  .object({ name: keyName.optional(), is_active: z.boolean().optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.is_active !== undefined, 'send name and/or is_active');

export const apiKeySchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    scope: z.enum(['full', 'public']),
    prefix: z.string().meta({ description: 'The type prefix and 4 characters of the key, e.g. `sl_live_Ab3x`' }),
    last4: z.string(),
    is_active: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
    last_used_at: timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });
export const createdApiKeySchema = apiKeySchema
  .extend({
    key: z.string().meta({
      description: 'The full key: shown in this response only',
      example: 'sl_live_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg',
    }),
  })
  .meta({ id: 'CreatedApiKey' });

const providerSlugSchema = z.enum(PROVIDER_SLUGS);
const baseUrlSchema = z
  .string()
  .max(2048)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname && !u.username && !u.password;
    } catch {
      return false;
    }
  }, 'must be an http(s) URL without credentials');

export const upsertProviderKeyBody = z
  .object({
    project_id: uuidSchema,
    provider: providerSlugSchema,
    api_key: secretInput(4096).optional(),
    base_url: baseUrlSchema.nullable().optional(),
  })
  .strict();
export type UpsertProviderKey = z.output<typeof upsertProviderKeyBody>;

export const providerKeySchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    provider: z.string(),
    masked_key: z
      .string()
      .nullable()
      .meta({ description: 'First 4 … last 4 characters; null for keyless providers', example: 'sk-p…wxyz' }),
    base_url: z.string().nullable(),
    master_key_id: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ProviderKey' });
export type ProviderKeyView = z.input<typeof providerKeySchema>;

export const keyInfoSchema = z
  .object({
    key: z.object({
      id: z.uuid(),
      name: z.string(),
      scope: z.enum(['full', 'public']),
      prefix: z.string(),
      last4: z.string(),
      created_at: timestamp,
      last_used_at: timestamp.nullable(),
    }),
    status: z.enum(['active', 'revoked']),
    is_active: z.boolean(),
    scope: z.enum(['full', 'public']),
    project: z.object({ id: z.uuid(), name: z.string() }),
    organization: z.object({ id: z.uuid(), name: z.string(), plan: z.string() }),
  })
  .meta({ id: 'KeyInfo' });
