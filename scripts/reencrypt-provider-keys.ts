/**
 * After rotating MASTER_KEY (new key + MASTER_KEY_ID, old one listed in MASTER_KEYS_OLD), rewrites
 * every provider key under the current master key. Then the old key can be dropped from MASTER_KEYS_OLD.
 *
 *   DATABASE_URL=… MASTER_KEY=… MASTER_KEY_ID=k2 MASTER_KEYS_OLD=k1:… npx tsx scripts/reencrypt-provider-keys.ts
 */
import { loadConfig } from '../src/config';
import { createDb } from '../src/db/knex';
import { resolveMasterKey } from '../src/auth/crypto';
import { reencryptProviderKeys } from '../src/keys/provider-keys';

async function main() {
  const config = loadConfig();
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required');
  const ring = resolveMasterKey(config);
  const db = createDb(config.DATABASE_URL, 2);
  try {
    const n = await reencryptProviderKeys(db, ring);
    process.stdout.write(`re-encrypted ${n} provider key(s) under ${ring.currentId}\n`);
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  process.stderr.write(`reencrypt-provider-keys: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
