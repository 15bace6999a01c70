import type { Config } from '../src/config';
import type { Db } from '../src/db/knex';
import type { ExportStore } from '../src/exports/storage';
import type { Keyring } from '../src/auth/crypto';
import type { Logger } from '../src/logger';
import type { Metrics } from '../src/metrics/metrics';
import type { EndpointGuard } from '../src/webhooks/endpoint-guard';
import type { SafeHttpClient } from '../src/webhooks/safe-http';

/**
 * What activities may touch, built once by the runtime (src/runtime.ts) and handed in: activities
 * never look a dependency up themselves.
 */
export interface ActivityDeps {
  db: Db;
  /** The worker's settings (retention days, …). */
  config: Config;
  /** The runtime's SSRF-guarded webhook client (pooled connections shared by all attempts). */
  http: SafeHttpClient;
  keyring: Keyring;
  /** Per-webhook in-flight cap and circuit of this worker's delivery attempts. */
  endpoints: EndpointGuard;
  /** Where export files are written (local directory or S3). */
  exportStore: ExportStore;
  logger: Logger;
  metrics: Metrics;
}
