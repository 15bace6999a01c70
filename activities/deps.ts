import type { Db } from '../src/db/knex';
import type { Config } from '../src/config';
import type { Logger } from '../src/logger';

/** What activities may touch. Built once per worker process. */
export interface ActivityDeps {
  db: Db;
  logger: Logger;
  config: Config;
}
