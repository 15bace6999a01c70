import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startRuntime, type Runtime } from '../../src/runtime';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { freePort } from '../../src/util/net';
import { freshDatabase, type TestDatabase } from '../helpers/db';

async function health(url: string) {
  const res = await fetch(`${url}/health`);
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

function apiRuntime(env: Record<string, string>, databaseUrl: string) {
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    MASTER_KEY: randomBytes(32).toString('hex'),
    ...env,
  });
  return startRuntime(config, { role: 'api', databaseUrl, port: 0, logger: createLogger('silent') });
}

describe('GET /health when a dependency is down', () => {
  let temporal: DevServer;
  let database: TestDatabase;
  let runtime: Runtime;

  beforeAll(async () => {
    // A Temporal server of this test's own, so stopping it does not disturb other suites.
    temporal = await startDevServer({ port: await freePort() });
    database = await freshDatabase();
    runtime = await apiRuntime({ TEMPORAL_ADDRESS: temporal.address }, database.url);
  });
  afterAll(async () => {
    await runtime?.stop();
    await temporal?.stop();
    await database?.drop();
  });

  it('answers 503 naming temporal after the Temporal server stops, and 200 before', async () => {
    expect(await health(runtime.api!.url)).toEqual({ status: 200, body: { status: 'ok', db: 'ok', temporal: 'ok' } });
    await temporal.stop();
    const down = await health(runtime.api!.url);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'unavailable', db: 'ok', temporal: 'unavailable' });
    expect(down.body.error).toMatch(/temporal/);
  });

  it('answers 503 naming db when PostgreSQL cannot be reached', async () => {
    const dead = await freePort();
    const rt = await apiRuntime(
      { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS! },
      `postgres://postgres@127.0.0.1:${dead}/nothing`,
    );
    try {
      const down = await health(rt.api!.url);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 'unavailable', db: 'unavailable', temporal: 'ok' });
      expect(down.body.error).toMatch(/db/);
    } finally {
      await rt.stop();
    }
  });
});
