/* eslint-disable @typescript-eslint/no-require-imports --
   each role loads only its own modules (the reason is beside each require) */
import type { Services } from './services';
import type { Config } from './config';
import type { AppContext, BackgroundService } from './context';
import { ensureDatabase } from './db/admin';
import { createDb, migrateLatest } from './db/knex';
import { outboxDispatcherService } from './webhooks/dispatch/dispatcher';
import { traceSweeperService } from './ingest/sweeper';
import { scheduleService } from './schedules';
import { alertReconcileService } from './alerts/schedules';
import { createAuth } from './auth/middleware';
import { createJwtVerifier } from './auth/jwt';
import { resolveMasterKey } from './auth/crypto';
import { createLogger, type Logger } from './logger';
import { createMetrics } from './metrics/metrics';
import { createLocalChanges } from './db/changes';
import { createUserDirectory } from './auth/users';
import { endpointGuardFromConfig } from './webhooks/endpoint-guard';
import { safeHttpClientFromConfig } from './webhooks/safe-http';
import { listen, type RunningServer } from './server';
import { createTemporal, ensureSearchAttributes } from './temporal/client';
import type { RunningWorker } from './temporal/worker';
import { exportStoreFromConfig } from './exports/storage';
import { exportTaskQueue } from './exports/service';

// Long-running work of the worker role besides the Temporal worker (BackgroundService: src/context.ts).
const backgroundServices: BackgroundService[] = [
  outboxDispatcherService,
  traceSweeperService,
  scheduleService,
  alertReconcileService,
];

export interface Runtime {
  ctx: AppContext;
  /** The api role's feature services (undefined in the worker role). */
  services?: Services;
  api?: RunningServer;
  worker?: RunningWorker;
  stop(): Promise<void>;
}

export interface RuntimeOptions {
  /** `exports`: only the export activity worker (EXPORT_TASK_QUEUE), a light process to scale apart. */
  role: 'api' | 'worker' | 'exports' | 'all';
  databaseUrl: string;
  migrate?: boolean;
  logger?: Logger;
  /** Overrides PORT (tests pass 0 for a free port). */
  port?: number;
}

/** Builds the shared context and starts the parts of the service the role asks for. */
export async function startRuntime(config: Config, opts: RuntimeOptions): Promise<Runtime> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const db = createDb(opts.databaseUrl, config.DATABASE_POOL_MAX, logger);
  if (opts.migrate) {
    // Creating the database needs rights a managed database may not grant: best effort.
    await ensureDatabase(opts.databaseUrl).catch((err) =>
      logger.warn({ err }, 'could not check or create the database'),
    );
    const applied = await migrateLatest(db);
    if (applied.length) logger.info({ applied }, 'migrations applied');
  }
  const temporal = await createTemporal(
    { address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.TEMPORAL_TASK_QUEUE },
    { lazy: true },
  );
  const shutdownHooks: (() => Promise<void>)[] = [];
  const timers: NodeJS.Timeout[] = [];
  const users = createUserDirectory(db);
  const webhookHttp = safeHttpClientFromConfig(config); // a bad WEBHOOK_CA_FILE stops start-up here
  const ctx: AppContext = {
    config,
    db,
    temporal,
    logger,
    users,
    auth: createAuth({ db, verifyJwt: createJwtVerifier(config), users }),
    keyring: resolveMasterKey(config),
    webhookHttp,
    metrics: createMetrics(),
    exportStore: exportStoreFromConfig(config),
    changes: createLocalChanges(),
    onShutdown: (fn) => shutdownHooks.push(fn),
    every: (name, intervalMs, fn) => {
      let running = false;
      const t = setInterval(() => {
        if (running) return;
        running = true;
        fn()
          .catch((err) => logger.warn({ err, task: name }, 'periodic task failed'))
          .finally(() => (running = false));
      }, intervalMs);
      t.unref();
      timers.push(t);
    },
  };

  let api: RunningServer | undefined;
  let services: Services | undefined;
  let worker: RunningWorker | undefined;
  let exportWorker: { stop(): Promise<void> } | undefined;
  const background: { stop(): Promise<void> }[] = [];
  // endpoints: this worker's per-webhook in-flight counts and circuits (isolation of a slow receiver).
  const activityDeps = {
    db,
    logger,
    http: ctx.webhookHttp,
    keyring: ctx.keyring,
    metrics: ctx.metrics,
    config,
    exportStore: ctx.exportStore,
    endpoints: endpointGuardFromConfig(config),
  };

  if (opts.role === 'api' || opts.role === 'all') {
    // Loaded only in api roles: every feature's routes cost a worker-only process ~25 MB of RSS.
    const { buildServices } = require('./services') as typeof import('./services');
    const { createApp } = require('./app') as typeof import('./app');
    const { buildRoutes } = require('./routes') as typeof import('./routes');
    services = buildServices(ctx);
    api = await listen(createApp(ctx, buildRoutes(ctx, services)), opts.port ?? config.PORT, config.HOST);
    logger.info({ url: api.url }, 'api listening');
  }
  if (opts.role === 'worker' || opts.role === 'all') {
    // The dev server registers our search attributes at start; an external server gets them here.
    await ensureSearchAttributes(temporal).catch((err) => logger.warn({ err }, 'could not register search attributes'));
    // Loaded only in worker roles: the worker SDK and its bundler cost the api role ~16 MB of RSS.
    const { startWorker } = require('./temporal/worker') as typeof import('./temporal/worker');
    const { createActivities } = require('../activities') as typeof import('../activities');
    worker = await startWorker({
      address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      logger,
      activities: createActivities(activityDeps),
      bundlePath: config.TEMPORAL_WORKFLOW_BUNDLE,
    });
    for (const start of backgroundServices) background.push(await start(ctx, worker));
    logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
  }
  if (opts.role === 'exports' || (opts.role !== 'api' && config.EXPORT_WORKER)) {
    // Not ./temporal/worker: that loads every workflow's activities; this process needs the export ones.
    const { startActivityWorker } =
      require('./temporal/activity-worker') as typeof import('./temporal/activity-worker');
    const { exportActivities } = require('../activities/exports') as typeof import('../activities/exports');
    const taskQueue = exportTaskQueue(config);
    exportWorker = await startActivityWorker({
      address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue,
      logger,
      activities: exportActivities(activityDeps),
      concurrency: config.EXPORT_CONCURRENCY,
      connection: worker?.connection,
    });
    logger.info({ taskQueue }, 'export worker running');
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Order matters: stop taking requests, drain what they queued, then stop workers, then pools.
      await api?.close(config.SHUTDOWN_TIMEOUT_MS);
      for (const t of timers) clearInterval(t);
      for (const hook of shutdownHooks.reverse())
        await hook().catch((err) => logger.error({ err }, 'shutdown hook failed'));
      for (const s of background.reverse()) await s.stop().catch((err) => logger.error({ err }, 'service stop failed'));
      await exportWorker?.stop().catch((err) => logger.error({ err }, 'export worker stop failed'));
      await worker?.stop().catch((err) => logger.error({ err }, 'worker stop failed'));
      await temporal.close().catch(() => undefined);
      await webhookHttp.close().catch(() => undefined);
      await db.destroy();
    })());
  return { ctx, services, api, worker, stop };
}
