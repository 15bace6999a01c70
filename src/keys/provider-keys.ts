import type { Knex } from 'knex';
import { z } from 'zod';
import { loadConfig, type Config } from '../config';
import { decryptSecret, encryptSecret, lastResolvedKeyring, maskSecret, resolveMasterKey, type Keyring } from './crypto';

export const PROVIDER_SLUGS = ['openai', 'anthropic', 'gemini', 'mistral', 'groq', 'deepseek', 'xai', 'together', 'openrouter', 'ollama'] as const;
export type ProviderSlug = (typeof PROVIDER_SLUGS)[number];
/** Providers usable without an upstream key (self-hosted runtimes). */
export const KEYLESS_PROVIDERS: ReadonlySet<string> = new Set(['ollama']);

export const providerSlugSchema = z.enum(PROVIDER_SLUGS);
export const baseUrlSchema = z
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

// Keyring per database handle, registered by the api at start; falls back to the process's last
// resolved keyring, then to MASTER_KEY from the environment (worker-only processes).
const keyrings = new WeakMap<Knex, Keyring>();
export function useKeyring(db: Knex, ring: Keyring): void {
  keyrings.set(db, ring);
}
function keyringFor(db: Knex, given?: Keyring | Config): Keyring {
  if (given) return 'keys' in given ? given : resolveMasterKey(given);
  return keyrings.get(db) ?? lastResolvedKeyring() ?? resolveMasterKey(loadConfig());
}

const aadFor = (projectId: string, provider: string) => `provider_key:${projectId}:${provider}`;

/**
 * The decrypted upstream credentials of a project for one provider, or null when none is set.
 * `apiKey` is null for keyless providers (ollama) configured with only a base URL.
 */
export async function getProviderKey(
  db: Knex | Knex.Transaction,
  projectId: string,
  provider: string,
  keyring?: Keyring | Config,
): Promise<{ apiKey: string | null; baseUrl: string | null } | null> {
  const row = await db('provider_keys')
    .select('api_key_ciphertext', 'master_key_id', 'base_url')
    .where({ project_id: projectId, provider })
    .first();
  if (!row) return null;
  const apiKey = row.api_key_ciphertext
    ? decryptSecret(keyringFor(db as Knex, keyring), row.api_key_ciphertext, row.master_key_id, aadFor(projectId, provider))
    : null;
  return { apiKey, baseUrl: row.base_url ?? null };
}

export interface ProviderKeyView {
  id: string;
  project_id: string;
  provider: string;
  masked_key: string | null;
  base_url: string | null;
  master_key_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const VIEW_COLUMNS = ['id', 'project_id', 'provider', 'key_hint', 'base_url', 'master_key_id', 'created_at', 'updated_at'];
export const toView = (r: Record<string, any>): ProviderKeyView => ({
  id: r.id,
  project_id: r.project_id,
  provider: r.provider,
  masked_key: r.key_hint ?? null,
  base_url: r.base_url ?? null,
  master_key_id: r.master_key_id ?? null,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export async function listProviderKeys(db: Knex, orgId: string, projectIds: string[]): Promise<ProviderKeyView[]> {
  const rows = await db('provider_keys').select(VIEW_COLUMNS).where({ org_id: orgId }).whereIn('project_id', projectIds).orderBy(['project_id', 'provider']);
  return rows.map(toView);
}

export async function findProviderKey(db: Knex | Knex.Transaction, orgId: string, id: string): Promise<ProviderKeyView | null> {
  const row = await db('provider_keys').select(VIEW_COLUMNS).where({ org_id: orgId, id }).first();
  return row ? toView(row) : null;
}

/**
 * Creates or replaces the one entry for (project, provider). A replacement without `apiKey` keeps
 * nothing of the old key: the caller states the full desired configuration.
 */
export async function upsertProviderKey(
  trx: Knex.Transaction,
  ring: Keyring,
  input: { orgId: string; projectId: string; provider: ProviderSlug; apiKey: string | null; baseUrl: string | null; createdBy: string | null },
): Promise<{ view: ProviderKeyView; created: boolean; before: ProviderKeyView | null }> {
  const before = await trx('provider_keys').select(VIEW_COLUMNS).where({ project_id: input.projectId, provider: input.provider }).forUpdate().first();
  const enc = input.apiKey ? encryptSecret(ring, input.apiKey, aadFor(input.projectId, input.provider)) : null;
  const values = {
    api_key_ciphertext: enc?.ciphertext ?? null,
    master_key_id: enc?.keyId ?? null,
    key_hint: input.apiKey ? maskSecret(input.apiKey) : null,
    base_url: input.baseUrl,
  };
  const [row] = await trx('provider_keys')
    .insert({ org_id: input.orgId, project_id: input.projectId, provider: input.provider, created_by: input.createdBy, ...values })
    .onConflict(['project_id', 'provider'])
    .merge({ ...values, updated_at: trx.fn.now() })
    .returning(VIEW_COLUMNS);
  return { view: toView(row), created: !before, before: before ? toView(before) : null };
}

/** Re-encrypts rows under the current master key (after rotating MASTER_KEY); returns how many changed. */
export async function reencryptProviderKeys(db: Knex, ring: Keyring, batchSize = 200): Promise<number> {
  let changed = 0;
  for (;;) {
    const n = await db.transaction(async (trx) => {
      const rows = await trx('provider_keys')
        .select('id', 'project_id', 'provider', 'api_key_ciphertext', 'master_key_id')
        .whereNotNull('api_key_ciphertext')
        .whereNot('master_key_id', ring.currentId)
        .limit(batchSize)
        .forUpdate()
        .skipLocked();
      for (const r of rows) {
        const aad = aadFor(r.project_id, r.provider);
        const enc = encryptSecret(ring, decryptSecret(ring, r.api_key_ciphertext, r.master_key_id, aad), aad);
        await trx('provider_keys').where({ id: r.id }).update({ api_key_ciphertext: enc.ciphertext, master_key_id: enc.keyId });
      }
      return rows.length;
    });
    changed += n;
    if (n < batchSize) return changed;
  }
}
