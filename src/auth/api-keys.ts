import type { Knex } from 'knex';
import { randomBase62, sha256Hex } from '../util/random';
import type { ApiKeyScope } from './principal';
import { apiKeyByHash, touchApiKey } from './queries';

/**
 * Service API keys: `sl_live_<43 base62>` (full scope) or `sl_live_pub_<43 base62>` (public,
 * read-only). 43 base62 characters carry ~256 bits, so a single SHA-256 is the right hash: lookups
 * are one indexed equality on `key_hash`, never a scan, and the plaintext is never stored.
 */
const API_KEY_PREFIX = 'sl_live_';
const PUBLIC_KEY_PREFIX = 'sl_live_pub_';
const SECRET_LENGTH = 43;
const KEY_FORMAT = /^sl_live_(pub_)?[0-9A-Za-z]{43}$/;

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  projectId: string;
  name: string;
  scope: ApiKeyScope;
  isActive: boolean;
  lastUsedAt: Date | null;
}

export const looksLikeApiKey = (token: string) => token.startsWith(API_KEY_PREFIX);
export const hashApiKey = (rawKey: string) => sha256Hex(rawKey);

export interface GeneratedKey {
  key: string;
  hash: string;
  /** Shown in lists: the type prefix plus 4 characters, e.g. `sl_live_pub_Ab3x`. */
  prefix: string;
  last4: string;
}

export function generateApiKey(scope: ApiKeyScope): GeneratedKey {
  const head = scope === 'public' ? PUBLIC_KEY_PREFIX : API_KEY_PREFIX;
  const secret = randomBase62(SECRET_LENGTH);
  const key = head + secret;
  return { key, hash: hashApiKey(key), prefix: head + secret.slice(0, 4), last4: secret.slice(-4) };
}

// last_used_at is advisory: written at most once a minute per key per runtime, off the request path.
const TOUCH_INTERVAL_MS = 60_000;
const TOUCH_MEMO_MAX = 50_000;

/**
 * The key lookup of one runtime (built by createAuth). `authenticate` finds the key for a presented
 * secret, active or not (callers decide what a revoked key means), or null for anything that is not
 * a key of ours.
 */
export function createApiKeyAuthenticator(db: Knex) {
  const lastTouched = new Map<string, number>();

  function touchLastUsed(key: ApiKeyRecord): void {
    const now = Date.now();
    const seen = Math.max(lastTouched.get(key.id) ?? 0, key.lastUsedAt?.getTime() ?? 0);
    if (now - seen < TOUCH_INTERVAL_MS) return;
    if (lastTouched.size > TOUCH_MEMO_MAX) lastTouched.clear();
    lastTouched.set(key.id, now);
    touchApiKey(db, key.id).catch(() => lastTouched.delete(key.id));
  }

  return {
    async authenticate(rawKey: string): Promise<ApiKeyRecord | null> {
      if (!KEY_FORMAT.test(rawKey)) return null;
      const row = await apiKeyByHash(db, hashApiKey(rawKey));
      if (!row) return null;
      const record: ApiKeyRecord = {
        id: row.id,
        orgId: row.org_id,
        projectId: row.project_id,
        name: row.name,
        scope: row.scope,
        isActive: row.is_active,
        lastUsedAt: row.last_used_at,
      };
      if (record.isActive) touchLastUsed(record);
      return record;
    },
  };
}
