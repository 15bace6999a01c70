import knex, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from '../../migrations';

// BIGINT counts and NUMERIC money come back as JS numbers; our values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Db = Knex;

interface KnexLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export function createDb(connectionString: string, poolMax = 10, logger?: KnexLog): Db {
  return knex({
    // knex writes to the console by default; route its messages through our structured logger.
    log: {
      warn: (m: unknown) => logger?.warn({ knex: String(m) }, 'knex warning'),
      error: (m: unknown) => logger?.error({ knex: String(m) }, 'knex error'),
      deprecate: (m: unknown) => logger?.warn({ knex: String(m) }, 'knex deprecation'),
      debug: () => undefined,
    },
    client: 'pg',
    // JIT off: the rollup reads' plans carry the pending-batch view's large cost estimate, and
    // compiling them took ~300 ms of a 20 ms query; the raw scans it could speed up are rare.
    connection: {
      connectionString,
      application_name: 'llm-gateway',
      connectionTimeoutMillis: 5_000,
      options: '-c jit=off',
    },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}

/** Rejects when PostgreSQL does not answer within timeoutMs (including waiting for a pooled connection). */
export async function pingDb(db: Db, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([db.raw('select 1'), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
