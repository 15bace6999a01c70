import type { Principal } from '../auth/principal';
import type { AppContext } from '../context';
import { HttpError } from '../http/errors';
import { createSpanPricer } from './cost';
import { limitsFrom, type IngestLimits } from './limits';
import type { IngestOp, OpKind, OpResult } from './types';
import { IngestWriter } from './writer';

type IngestSource = 'sdk' | 'otlp';

export interface IngestService {
  limits: IngestLimits;
  /** Stores the operations of one request for the key's project; resolves once committed. */
  submit(principal: Principal, source: IngestSource, ops: IngestOp[]): Promise<OpResult[]>;
  /** Operations refused before reaching the writer (invalid, too large, too deep). */
  countRefused(op: OpKind, source: IngestSource, n?: number): void;
}

/**
 * The ingest write path of one api process: one batch writer (shared by /ingest/* and /v1/traces,
 * so their operations commit together) and one span pricer, drained on graceful shutdown.
 */
/** `afterCommit`: called once a request's spans are durable (the api folds the span rollups soon after). */
export function createIngestService(ctx: AppContext, opts: { afterCommit?: () => void } = {}): IngestService {
  const writer = new IngestWriter(
    ctx.db,
    ctx.logger.child({ component: 'ingest-writer' }),
    {
      concurrency: ctx.config.INGEST_WRITER_CONCURRENCY,
      maxBatchOps: ctx.config.INGEST_WRITER_MAX_BATCH_OPS,
      maxQueuedOps: ctx.config.INGEST_WRITER_MAX_QUEUED_OPS,
    },
    createSpanPricer(),
  );
  ctx.onShutdown(() => writer.drain());
  const counter = ctx.metrics.ingestOperations;

  return {
    limits: limitsFrom(ctx.config),
    async submit(principal, source, ops) {
      if (principal.kind !== 'api_key')
        throw new HttpError(403, 'full_key_required', 'Ingest needs a full-scope API key');
      if (ops.length === 0) return [];
      let results: OpResult[];
      try {
        results = await writer.submit({ orgId: principal.orgId, projectId: principal.projectId, source, ops });
        opts.afterCommit?.();
      } catch (err) {
        for (const op of ops) counter.inc({ op: op.op, source, outcome: 'error' });
        throw err;
      }
      ops.forEach((op, i) => counter.inc({ op: op.op, source, outcome: results[i]?.ok ? 'ok' : 'error' }));
      return results;
    },
    countRefused: (op, source, n = 1) => counter.inc({ op, source, outcome: 'error' }, n),
  };
}
