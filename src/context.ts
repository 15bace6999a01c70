import type { Config } from './config';
import type { Db } from './db/knex';
import type { Logger } from './logger';
import type { Temporal } from './temporal/client';

/** What request handlers and background services share within one process. */
export interface AppContext {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
  /** Work to drain on graceful shutdown after the HTTP server stops accepting (batch writers, dispatchers). */
  onShutdown: (fn: () => Promise<void>) => void;
}
