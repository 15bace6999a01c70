/** `npm run migrate`: creates the database when missing and applies pending migrations. */
import { ConfigError, loadConfig } from '../src/config';
import { ensureDatabase } from '../src/db/admin';
import { createDb, migrateLatest } from '../src/db/knex';

async function run() {
  const config = loadConfig();
  const url = config.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/llm_gateway';
  if (await ensureDatabase(url)) console.log(`created database ${new URL(url).pathname.slice(1)}`);
  const db = createDb(url, 1);
  try {
    const applied = await migrateLatest(db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
  } finally {
    await db.destroy();
  }
}

run().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
