import path from 'node:path';
import { devDefaults } from '../auth/dev-secret';
import { loadConfig } from '../config';
import { resolveMasterKey } from '../auth/crypto';
import { createLogger } from '../logger';
import { mintLocalToken } from '../auth/dev-token';
import { startRuntime } from '../runtime';
import { PROJECT_ROOT } from '../temporal/binaries';
import { startDevServer } from '../temporal/dev-server';
import { resolveDevPostgres } from './postgres';

/**
 * `npm run dev`: Temporal dev server (SQLite under .data/, Web UI), PostgreSQL, migrations, then the
 * api and the worker in this process. Ctrl-C stops everything; the next run reuses the data.
 */
export async function runDevStack(): Promise<void> {
  const dataDir = process.env.DEV_DATA_DIR ?? path.join(PROJECT_ROOT, '.data');
  // Explicit environment wins; see devDefaults for what an unconfigured dev stack gets.
  Object.assign(process.env, devDefaults(process.env, dataDir));
  const log = (m: string) => process.stdout.write(`[dev] ${m}\n`);

  const preliminary = loadConfig();
  // A master key made once for this machine and kept in .data/master.key (never for production roles).
  if (!process.env.MASTER_KEY) {
    const ring = resolveMasterKey(preliminary, { role: 'dev', dataDir });
    process.env.MASTER_KEY = ring.keys.get(ring.currentId)!.toString('hex');
  }
  const pg = await resolveDevPostgres(dataDir, log);
  log(`PostgreSQL (${pg.source}): ${pg.url.replace(/:[^:@/]*@/, ':***@')}`);

  const [host, portText] = preliminary.TEMPORAL_ADDRESS.split(':') as [string, string];
  const temporal = await startDevServer({
    host,
    port: Number(portText),
    uiPort: preliminary.TEMPORAL_UI_PORT,
    dbFile: path.join(dataDir, 'temporal.sqlite'),
    namespace: preliminary.TEMPORAL_NAMESPACE,
    log,
  }).catch(async (err) => {
    await pg.stop();
    throw err;
  });
  log(`Temporal dev server: ${temporal.address} (data: ${path.join(dataDir, 'temporal.sqlite')})`);
  log(`Temporal Web UI:     ${temporal.uiUrl}`);

  const config = loadConfig({
    ...process.env,
    DATABASE_URL: pg.url,
    TEMPORAL_UI_URL: process.env.TEMPORAL_UI_URL ?? temporal.uiUrl,
  });
  const runtime = await startRuntime(config, {
    role: 'all',
    databaseUrl: pg.url,
    migrate: true,
    logger: createLogger(config.LOG_LEVEL),
  });
  log(`API:                 ${runtime.api?.url}  (try: curl ${runtime.api?.url}/health)`);
  if (!config.AUTH_JWKS_URL && config.AUTH_JWT_SECRET) {
    // The dashboard's local sign-in: a 12-hour token for the dev user, in the link's fragment (never sent to a server
    // log).
    const token = await mintLocalToken(config, config.AUTH_JWT_SECRET, {
      sub: 'dev',
      email: 'dev@localhost',
      ttlSeconds: 12 * 3600,
    });
    log(`Dashboard:           ${runtime.api?.url}/#dev_token=${token}`);
  }
  log('Ctrl-C stops everything.');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping api and worker, Temporal and PostgreSQL…`);
    await runtime.stop();
    await temporal.stop();
    await pg.stop();
    log('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
