import type { Knex } from 'knex';
import { decryptSecret, encryptSecret, maskSecret, type Keyring } from '../auth/crypto';
import * as q from './queries';

/**
 * Upstream provider credentials at rest: AES-256-GCM under the runtime's keyring, each ciphertext
 * bound to its (project, provider) so a ciphertext copied onto another row does not decrypt.
 */
export const PROVIDER_SLUGS = [
  'openai',
  'anthropic',
  'gemini',
  'mistral',
  'groq',
  'deepseek',
  'xai',
  'together',
  'openrouter',
  'ollama',
] as const;
/** Providers usable without an upstream key (self-hosted runtimes). */
export const KEYLESS_PROVIDERS: ReadonlySet<string> = new Set(['ollama']);

const aadFor = (projectId: string, provider: string) => `provider_key:${projectId}:${provider}`;

/**
 * The decrypted upstream credentials of a project for one provider, or null when none is set.
 * `apiKey` is null for keyless providers (ollama) configured with only a base URL.
 */
export async function getProviderKey(
  db: Knex | Knex.Transaction,
  projectId: string,
  provider: string,
  keyring: Keyring,
): Promise<{ apiKey: string | null; baseUrl: string | null } | null> {
  const row = await q.providerKeyCipher(db, projectId, provider);
  if (!row) return null;
  const apiKey = row.api_key_ciphertext
    ? decryptSecret(keyring, row.api_key_ciphertext, row.master_key_id, aadFor(projectId, provider))
    : null;
  return { apiKey, baseUrl: row.base_url ?? null };
}

/** The stored columns of a key: ciphertext under the current master key and a masked hint. */
export function sealProviderKey(
  ring: Keyring,
  projectId: string,
  provider: string,
  apiKey: string | null,
  baseUrl: string | null,
): q.ProviderKeyValues {
  const enc = apiKey ? encryptSecret(ring, apiKey, aadFor(projectId, provider)) : null;
  return {
    api_key_ciphertext: enc?.ciphertext ?? null,
    master_key_id: enc?.keyId ?? null,
    key_hint: apiKey ? maskSecret(apiKey) : null,
    base_url: baseUrl,
  };
}

/** Re-encrypts rows under the current master key (after rotating MASTER_KEY); returns how many changed. */
export async function reencryptProviderKeys(db: Knex, ring: Keyring, batchSize = 200): Promise<number> {
  let changed = 0;
  for (;;) {
    const n = await db.transaction(async (trx) => {
      const rows = await q.staleProviderKeys(trx, ring.currentId, batchSize);
      for (const r of rows) {
        const aad = aadFor(r.project_id, r.provider);
        const enc = encryptSecret(ring, decryptSecret(ring, r.api_key_ciphertext, r.master_key_id, aad), aad);
        await q.setProviderKeyCipher(trx, r.id, enc.ciphertext, enc.keyId);
      }
      return rows.length;
    });
    changed += n;
    if (n < batchSize) return changed;
  }
}
