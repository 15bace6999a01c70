import { createRollupFolder } from './analytics/fold';
import { createPgAnalytics, type AnalyticsStore } from './analytics/store';
import type { AppContext } from './context';
import { createIngestService, type IngestService } from './ingest/service';
import { createProxy, type Proxy } from './proxy/proxy';

/**
 * The feature services of the api role, built once per runtime from the shared context and handed
 * to the routes (src/routes.ts). Tests reach them through `runtime.services`.
 */
export interface Services {
  /** The ingest batch writer shared by /ingest/* and /v1/traces. */
  ingest: IngestService;
  /** The provider proxy: its request-log writer, upstream pool and memoised lookups. */
  proxy: Proxy;
  /** Every aggregate query of the request log, traces and end users (the columnar-store boundary). */
  analytics: AnalyticsStore;
}

/** @public loaded lazily by src/runtime.ts (api roles only) */
export function buildServices(ctx: AppContext): Services {
  const folder = createRollupFolder(ctx.db, ctx.logger.child({ component: 'rollup-fold' }));
  // Registered first, so it runs after the proxy has drained its last batch.
  ctx.onShutdown(() => folder.drain());
  const proxy = createProxy(ctx, { afterCommit: folder.poke });
  // Caching turns on once the invalidation listener is connected; a dead process's journal is replayed meanwhile.
  proxy.start().catch((err) => ctx.logger.error({ err }, 'proxy start failed'));
  ctx.onShutdown(() => proxy.close());
  return {
    ingest: createIngestService(ctx, { afterCommit: folder.poke }),
    proxy,
    analytics: createPgAnalytics(ctx.db),
  };
}
