import knex, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from '../../migrations';

// BIGINT counts and NUMERIC money come back as JS numbers; our values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Db = Knex;

export function createDb(connectionString: string, poolMax = 10): Db {
  return knex({
    client: 'pg',
    connection: { connectionString, application_name: 'llm-gateway' },
    pool: { min: 0, max: poolMax },
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}

export async function pingDb(db: Db, timeoutMs = 2000): Promise<void> {
  await db.raw('select 1').timeout(timeoutMs, { cancel: true });
}
