import type { Knex } from 'knex';

export interface UserRow {
  id: string;
  sub: string;
  email: string | null;
}

// A short-lived cache so an authenticated request does not write the users table every time.
const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

/** Users known by JWT `sub`, with a per-runtime cache (built by the runtime, handed to auth). */
export function createUserDirectory(db: Knex) {
  const cache = new Map<string, { user: UserRow; at: number }>();
  return {
    /** Finds the user for a JWT `sub`, creating it on first sight and refreshing a changed email. */
    async provision(sub: string, email: string | null): Promise<UserRow> {
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
    },
    /** Test hook: forget cached users. */
    clear: () => cache.clear(),
  };
}

export type UserDirectory = ReturnType<typeof createUserDirectory>;
