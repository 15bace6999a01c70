import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startRuntime, type Runtime } from '../../src/runtime';
import { freshDatabase, type TestDatabase } from './db';

export interface TestApp {
  /** Base URL of the api on loopback, e.g. http://127.0.0.1:40123 */
  url: string;
  runtime: Runtime;
  config: Config;
  database: TestDatabase;
  stop(): Promise<void>;
}

export interface TestAppOptions {
  role?: 'api' | 'worker' | 'all';
  /** Extra environment for loadConfig (e.g. AUTH_JWT_SECRET, PROVIDER_OPENAI_BASE_URL). */
  env?: Record<string, string>;
  database?: TestDatabase;
}

/**
 * Starts the real service (api and/or worker) against a fresh database and the suite's Temporal
 * dev server. Each app gets its own task queue so test files never steal each other's tasks.
 */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const database = opts.database ?? (await freshDatabase());
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    AUTH_JWT_SECRET: 'test-secret-test-secret-test-secret',
    MASTER_KEY: randomBytes(32).toString('hex'),
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(4).toString('hex')}`,
    HOST: '127.0.0.1',
    CONTRACT_CHECK_RESPONSES: 'true',
    ...opts.env,
    DATABASE_URL: database.url,
  });
  const runtime = await startRuntime(config, {
    role: opts.role ?? 'all',
    databaseUrl: database.url,
    logger: createLogger(config.LOG_LEVEL),
    port: 0,
  });
  return {
    url: runtime.api?.url ?? '',
    runtime,
    config,
    database,
    stop: async () => {
      await runtime.stop();
      if (!opts.database) await dropDatabase(database);
    },
  };
}

async function dropDatabase(database: TestDatabase) {
  // runtime.stop() destroyed the runtime's pool; the helper's own pool goes with drop().
  await database.drop();
}
