/** The PostgreSQL server tests create their databases on (the machine's local server by default). */
export const TEST_PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
