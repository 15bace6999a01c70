import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Usage } from '../providers/usage';

/**
 * The opt-in response cache, in PostgreSQL so every api replica shares it. A hit needs the same
 * API key, method, provider, path (with query) and byte-identical body: all are hashed into the
 * key. Entries expire exactly at `expires_at` (compared with the database clock on read); expired
 * rows are deleted lazily on a miss and by a periodic sweep.
 */
export const CACHE_MAX_BODY_BYTES = 256 * 1024;

export interface CachedResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
  model: string;
  usage: Usage | null;
}

export function cacheKey(parts: {
  apiKeyId: string;
  method: string;
  provider: string;
  path: string;
  body: Buffer;
}): string {
  const h = createHash('sha256');
  // Length-prefixed fields, so no two different tuples hash the same bytes.
  for (const f of [parts.apiKeyId, parts.method.toUpperCase(), parts.provider, parts.path]) {
    const b = Buffer.from(f, 'utf8');
    h.update(`${b.length}:`);
    h.update(b);
  }
  h.update(`${parts.body.length}:`);
  h.update(parts.body);
  return h.digest('hex');
}

/** Headers worth replaying on a hit; the rest (dates, request ids, lengths) describe the original exchange. */
const REPLAYED = new Set(['content-type', 'openai-model', 'openai-version', 'anthropic-version', 'x-model']);
export function replayableHeaders(h: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (REPLAYED.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The proxy_cache columns a lookup selects, as pg returns them (jsonb parsed, bytea a Buffer). */
interface CacheLookupRow {
  status_code: number;
  headers: Record<string, string>;
  body: Buffer;
  model: string;
  usage: Usage | null;
  fresh: boolean;
}

export async function cacheLookup(db: Knex, key: string): Promise<CachedResponse | null> {
  const { rows } = await db.raw<{ rows: CacheLookupRow[] }>(
    `select status_code, headers, body, model, usage, expires_at > now() as fresh from proxy_cache where key = ?`,
    [key],
  );
  const row = rows[0];
  if (!row) return null;
  if (!row.fresh) {
    // Lazy cleanup; the conditional delete leaves a concurrently refreshed entry alone.
    db.raw(`delete from proxy_cache where key = ? and expires_at <= now()`, [key]).catch(() => undefined);
    return null;
  }
  return { statusCode: row.status_code, headers: row.headers, body: row.body, model: row.model, usage: row.usage };
}

export async function cacheStore(
  db: Knex,
  e: {
    key: string;
    projectId: string;
    apiKeyId: string;
    provider: string;
    path: string;
    ttlSeconds: number;
  } & CachedResponse,
): Promise<void> {
  await db.raw(
    `insert into proxy_cache
       (key, project_id, api_key_id, provider, path, status_code, headers, body, model, usage, expires_at)
     values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?::jsonb, now() + make_interval(secs => ?))
     on conflict (key) do update
       set status_code = excluded.status_code, headers = excluded.headers, body = excluded.body,
       model = excluded.model, usage = excluded.usage, expires_at = excluded.expires_at, created_at = now()`,
    [
      e.key,
      e.projectId,
      e.apiKeyId,
      e.provider,
      e.path,
      e.statusCode,
      JSON.stringify(e.headers),
      e.body,
      e.model,
      e.usage ? JSON.stringify(e.usage) : null,
      e.ttlSeconds,
    ],
  );
}

/** Deletes expired entries in bounded batches; returns how many went. */
export async function sweepExpired(db: Knex, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await db.raw<{ rowCount: number }>(
      `delete from proxy_cache where key in (select key from proxy_cache where expires_at <= now() limit ?)`,
      [batch],
    );
    total += rowCount ?? 0;
    if (!rowCount || rowCount < batch) return total;
  }
}
