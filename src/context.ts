import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { Keyring } from './auth/crypto';
import type { Auth } from './auth/middleware';
import type { UserDirectory } from './auth/users';
import type { Config } from './config';
import type { LocalChanges } from './db/changes';
import type { Db } from './db/knex';
import type { Logger } from './logger';
import type { Metrics } from './metrics/metrics';
import type { Temporal } from './temporal/client';

/**
 * Long-lived services that one feature owns but the runtime builds once: the feature adds its own
 * member to this interface beside the service's code (TypeScript declaration merging,
 * `declare module '../context'`), so the kernel names no feature. Today: `webhookHttp`
 * (src/webhooks/service.ts) and `exportStore` (src/exports/storage.ts).
 * @public merged into by features (an import the dead-code check cannot see)
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface FeatureServices {}

/**
 * The long-lived services of one runtime, built once by `startRuntime` (src/runtime.ts) and handed
 * to every feature explicitly. Nothing in the code base keeps state at module level.
 */
export interface AppContext extends FeatureServices {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
  auth: Auth;
  users: UserDirectory;
  /** Encrypts provider keys and webhook secrets at rest. */
  keyring: Keyring;
  metrics: Metrics;
  /** This process's writes to memoised tables, announced after commit (src/db/changes.ts). */
  changes: LocalChanges;
  /** Work to drain on graceful shutdown after the HTTP server stops accepting (batch writers, dispatchers). */
  onShutdown: (fn: () => Promise<void>) => void;
  /** A periodic task owned by the runtime: started now, stopped on shutdown, never overlapping itself. */
  every: (name: string, intervalMs: number, fn: () => Promise<void>) => void;
}

/**
 * What a background service of the worker role gets of the running Temporal worker
 * (src/temporal/worker.ts builds it): features depend on this, never on the worker module.
 */
export interface WorkerLink {
  /** A client on the worker's own connection (eager workflow start hands the first task to this worker). */
  client: Client;
  connection: Pick<NativeConnection, 'withDeadline'>;
}

/**
 * Long-running work of the worker role besides the Temporal worker (e.g. the outbox dispatcher),
 * listed in src/runtime.ts. Services are stopped before the worker, so they may use its connection.
 */
export type BackgroundService = (ctx: AppContext, worker: WorkerLink) => Promise<{ stop(): Promise<void> }>;
