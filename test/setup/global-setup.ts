import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, migrateLatest } from '../../src/db/knex';
import { createDatabase, dropDatabase, withDatabase } from '../../src/db/admin';
import { resolveTestServer } from '../../src/temporal/binaries';
import { startDevServer } from '../../src/temporal/dev-server';
import { writeWorkflowBundle } from '../../src/temporal/worker';
import { freePort } from '../../src/util/net';
import { TEST_PG_URL } from '../helpers/env';

/**
 * Once per `npm test`: a real Temporal dev server (in memory, headless) on a free port, the
 * time-skipping test server binary resolved, a migrated template database that every test
 * file clones in milliseconds, and the workflow bundle that every worker of the run loads
 * (TEMPORAL_WORKFLOW_BUNDLE) instead of running webpack for itself.
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

  const bundle = path.join(tmpdir(), `gw-workflows-${process.pid}.js`);
  await writeWorkflowBundle(bundle);
  process.env.TEMPORAL_WORKFLOW_BUNDLE = bundle;

  const port = await freePort();
  const server = await startDevServer({ port, log });
  process.env.TEMPORAL_ADDRESS = server.address;
  (globalThis as Record<string, unknown>).__temporalDevServer = server;
  (globalThis as Record<string, unknown>).__testDbTemplate = template;
}
