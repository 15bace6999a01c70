import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { z } from 'zod';
import type { Db } from '../db/knex';
import { HttpError } from './errors';
import { Reply } from './route';

/**
 * Idempotency keys for operator actions (docs/webhooks.md "Idempotency keys"): the first call with
 * a key does the work and its answer is kept for 24 h; a repeat from the same organization gets
 * that answer back (header `Idempotent-Replayed: true`) without the work. A repeat whose method,
 * path or body differ is 422 `idempotency_key_reused`. Only successes are kept: a failed call did
 * no work, so its key is released and the same key may be retried.
 */

const IDEMPOTENCY_TTL_HOURS = 24;
/** A key still running after this long is taken over: its call died before recording an answer. */
const STALE_S = 60;

/** The `headers` contract of a route that accepts an Idempotency-Key. */
export const idempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x20-\x7e]{1,255}$/, 'must be 1–255 printable ASCII characters')
    .optional()
    .describe('Repeat the call safely: the same key within 24 h answers the first answer without doing it again'),
});

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same request. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!v || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, canonical(o[k])]),
  );
}

/** What makes two calls "the same request": method, path (ids included) and body. */
export function requestFingerprint(req: Pick<Request, 'method' | 'originalUrl' | 'body'>): string {
  const path = req.originalUrl.split('?')[0];
  const what = JSON.stringify([req.method, path, canonical(req.body ?? null)]);
  return createHash('sha256').update(what).digest('hex');
}

interface KeyRow {
  fingerprint: string;
  status: number | null;
  response: unknown;
}

/** Takes the key for this call (new, expired, or stale while running); false when another call holds it. */
async function claim(db: Db, orgId: string, key: string, fingerprint: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `insert into idempotency_keys (org_id, key, fingerprint, expires_at)
     values (?, ?, ?, now() + make_interval(hours => ?))
     on conflict (org_id, key) do update
       set fingerprint = excluded.fingerprint, status = null, response = null,
           created_at = now(), expires_at = excluded.expires_at
     where idempotency_keys.expires_at <= now()
        or (idempotency_keys.status is null and idempotency_keys.created_at < now() - make_interval(secs => ?))
     returning 1`,
    [orgId, key, fingerprint, IDEMPOTENCY_TTL_HOURS, STALE_S],
  );
  return rows.length > 0;
}

const liveKey = (db: Db, orgId: string, key: string): Promise<KeyRow | undefined> =>
  db('idempotency_keys')
    .where({ org_id: orgId, key })
    .andWhere('expires_at', '>', db.fn.now())
    .first('fingerprint', 'status', 'response');

export interface IdempotentCall {
  db: Db;
  orgId: string;
  /** The validated header; undefined: no key, the work simply runs. */
  key: string | undefined;
  req: Pick<Request, 'method' | 'originalUrl' | 'body'>;
  /** The contract's success status (kept with the answer for replays). */
  status: number;
}

const reused = () =>
  new HttpError(
    422,
    'idempotency_key_reused',
    'This Idempotency-Key was used for a different request (method, path or body) in the last 24 hours; use a new key',
  );
const inProgress = (message: string) =>
  new HttpError(409, 'idempotency_key_in_progress', message, {}, { 'retry-after': '1' });

/** Runs `work` once per (organization, key) within 24 h; see the module comment. */
export async function idempotent<T>(call: IdempotentCall, work: () => Promise<T>): Promise<T | Reply<unknown>> {
  const { db, orgId, key } = call;
  if (key === undefined) return work();
  const fingerprint = requestFingerprint(call.req);
  // Twice: a key that expired between our claim and our read is claimed on the second turn.
  for (let turn = 0; turn < 2; turn++) {
    if (await claim(db, orgId, key, fingerprint)) return runClaimed(call, fingerprint, work);
    const row = await liveKey(db, orgId, key);
    if (!row) continue;
    if (row.fingerprint !== fingerprint) throw reused();
    if (row.status === null) throw inProgress('A call with this Idempotency-Key is still running; retry in a moment');
    return new Reply(row.status, row.response, { 'idempotent-replayed': 'true' });
  }
  throw inProgress('This Idempotency-Key is changing hands; retry in a moment');
}

async function runClaimed<T>(call: IdempotentCall, fingerprint: string, work: () => Promise<T>): Promise<T> {
  const { db, orgId, key } = call;
  const mine = () => db('idempotency_keys').where({ org_id: orgId, key, fingerprint }).whereNull('status');
  let out: T;
  try {
    out = await work();
  } catch (err) {
    // Nothing was done: free the key so the same one can be retried.
    await mine()
      .del()
      .catch(() => undefined);
    throw err;
  }
  const status = out instanceof Reply ? out.status : call.status;
  const data = out instanceof Reply ? out.data : out;
  // Stored as the client saw it (dates as strings): a replay answers the same bytes.
  await mine().update({ status, response: JSON.stringify(data ?? null) });
  return out;
}

/** Deletes expired keys in batches (the daily retention run); returns how many. */
export async function deleteExpiredIdempotencyKeys(db: Db, batch = 10_000): Promise<number> {
  let total = 0;
  for (let n = batch; n === batch; total += n) {
    const { rowCount } = await db.raw(
      `delete from idempotency_keys
        where ctid in (select ctid from idempotency_keys where expires_at <= now() limit ?)`,
      [batch],
    );
    n = rowCount ?? 0;
  }
  return total;
}
