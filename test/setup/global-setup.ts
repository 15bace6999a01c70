import { createDb, migrateLatest } from '../../src/db/knex';
import { createDatabase, dropDatabase, withDatabase } from '../../src/db/admin';
import { resolveTestServer } from '../../src/temporal/binaries';
import { startDevServer } from '../../src/temporal/dev-server';
import { freePort } from '../../src/util/net';
import { TEST_PG_URL } from '../helpers/env';

/**
 * Once per `npm test`: a real Temporal dev server (in memory, headless) on a free port, the
 * time-skipping test server binary resolved, and a migrated template database that every test
 * file clones in milliseconds.
 */
export default async function globalSetup(): Promise<void> {
  const log = (m: string) => process.stderr.write(`[test setup] ${m}\n`);
  process.env.TEMPORAL_TEST_SERVER_PATH ??= resolveTestServer({ log });

  const template = `gw_tpl_${process.pid}`;
  await dropDatabase(TEST_PG_URL, template);
  await createDatabase(TEST_PG_URL, template);
  const db = createDb(withDatabase(TEST_PG_URL, template), 2);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  process.env.TEST_DB_TEMPLATE = template;

  const port = await freePort();
  const server = await startDevServer({ port, log });
  process.env.TEMPORAL_ADDRESS = server.address;
  (globalThis as Record<string, unknown>).__temporalDevServer = server;
  (globalThis as Record<string, unknown>).__testDbTemplate = template;
}
