import { randomBytes } from 'node:crypto';
import { createDatabase, dropDatabase, withDatabase } from '../../src/db/admin';
import { createDb, type Db } from '../../src/db/knex';
import { TEST_PG_URL } from './env';

export interface TestDatabase {
  name: string;
  url: string;
  db: Db;
  drop(): Promise<void>;
}

/** A fresh database for one test file, cloned from the migrated template made in global setup. */
export async function freshDatabase(): Promise<TestDatabase> {
  const template = process.env.TEST_DB_TEMPLATE;
  if (!template) throw new Error('TEST_DB_TEMPLATE is not set: run tests through jest (global setup)');
  const name = `gw_t_${randomBytes(6).toString('hex')}`;
  await createDatabase(TEST_PG_URL, name, template);
  const url = withDatabase(TEST_PG_URL, name);
  const db = createDb(url, 5);
  return {
    name,
    url,
    db,
    drop: async () => {
      await db.destroy();
      await dropDatabase(TEST_PG_URL, name);
    },
  };
}
