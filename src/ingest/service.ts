import type { AppContext } from '../context';
import { IngestWriter } from './writer';

const writers = new WeakMap<AppContext, IngestWriter>();

/** One batch writer per process (shared by /ingest/* and /v1/traces), drained on graceful shutdown. */
export function ingestWriter(ctx: AppContext): IngestWriter {
  let w = writers.get(ctx);
  if (!w) {
    w = new IngestWriter(ctx.db, ctx.logger.child({ component: 'ingest-writer' }), {
      concurrency: ctx.config.INGEST_WRITER_CONCURRENCY,
      maxBatchOps: ctx.config.INGEST_WRITER_MAX_BATCH_OPS,
      maxQueuedOps: ctx.config.INGEST_WRITER_MAX_QUEUED_OPS,
    });
    writers.set(ctx, w);
    const writer = w;
    ctx.onShutdown(() => writer.drain());
  }
  return w;
}
