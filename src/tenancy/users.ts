import type { Knex } from 'knex';

export interface UserRow {
  id: string;
  sub: string;
  email: string | null;
}

// A short-lived cache so an authenticated request does not write the users table every time.
const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;
// Keyed by pool too: tests run several apps (databases) in one process.
const caches = new WeakMap<Knex, Map<string, { user: UserRow; at: number }>>();

/** Finds the user for a JWT `sub`, creating it on first sight and refreshing a changed email. */
export async function provisionUser(db: Knex, sub: string, email: string | null): Promise<UserRow> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const hit = cache.get(sub);
  if (hit && Date.now() - hit.at < CACHE_TTL_MS && (email === null || hit.user.email === email)) return hit.user;

  const { rows } = await db.raw<{ rows: UserRow[] }>(
    `insert into users (sub, email) values (?, ?)
     on conflict (sub) do update set email = coalesce(excluded.email, users.email)
       where users.email is distinct from coalesce(excluded.email, users.email)
     returning id, sub, email`,
    [sub, email],
  );
  const user = rows[0] ?? (await db<UserRow>('users').select('id', 'sub', 'email').where({ sub }).first())!;
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(sub, { user, at: Date.now() });
  return user;
}

/** Test hook: forget cached users (a fresh database reuses no ids, but tests may mutate rows). */
export function clearUserCache(db: Knex): void {
  caches.get(db)?.clear();
}
