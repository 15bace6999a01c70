import pg from 'pg';

/** Database-level chores: used by `npm run migrate`, `npm run dev` and the test helpers. */

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || 'postgres';
}

async function onMaintenanceDb<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres'), connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function canConnect(url: string): Promise<boolean> {
  try {
    await onMaintenanceDb(url, (c) => c.query('select 1'));
    return true;
  } catch {
    return false;
  }
}

/** Creates the database named in `url` when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  return onMaintenanceDb(url, async (c) => {
    const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) return false;
    try {
      await c.query(`create database ${quoteIdent(name)}`);
    } catch (err) {
      if ((err as { code?: string }).code !== '42P04') throw err; // created concurrently
    }
    return true;
  });
}

export async function createDatabase(url: string, name: string, template?: string): Promise<void> {
  await onMaintenanceDb(url, (c) =>
    c.query(`create database ${quoteIdent(name)}${template ? ` template ${quoteIdent(template)}` : ''}`),
  );
}

export async function dropDatabase(url: string, name: string): Promise<void> {
  await onMaintenanceDb(url, (c) => c.query(`drop database if exists ${quoteIdent(name)} with (force)`));
}
