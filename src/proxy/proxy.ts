import type { Request, Response } from 'express';
import { Agent, type Dispatcher } from 'undici';
import { principalOf } from '../auth/principal';
import type { AppContext } from '../context';
import { HttpError, notFound } from '../http/errors';
import { createAdmission } from './admission';
import { sweepExpired } from './cache';
import { ProxyCaches } from './caches';
import { createProxyPricer } from '../providers/cost';
import { createForwarder } from './forward';
import { requestJournalFor } from './journal';
import { RequestLogWriter } from './log-writer';
import { findProvider } from '../providers/providers';
import { createRecorder } from './record';
import { parseByteSize } from './request-body';
import { parseServiceHeaders } from './service-headers';
import { sweepCounters } from '../rate-limits/admission';
import { preloadTokenizer } from './tokenizer';

export interface Proxy {
  handle(req: Request, res: Response): Promise<void>;
  writer: RequestLogWriter;
  dispatcher: Dispatcher;
  caches: ProxyCaches;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The provider proxy of one api process: admission → forward → record, over one request-log
 * writer (journaled), one upstream connection pool and the memoised lookups. Its periodic upkeep
 * (expired cache entries, old rate-limit counters) runs on the runtime's timers.
 */
export function createProxy(ctx: AppContext, opts: { afterCommit?: () => void } = {}): Proxy {
  const { config, db, logger } = ctx;
  const timeoutMs = config.PROXY_UPSTREAM_TIMEOUT_MS;
  const keepBytes = config.PROXY_LOG_BODY_MAX_BYTES;
  const writer = new RequestLogWriter(
    db,
    logger.child({ component: 'request-log' }),
    {
      queueMax: config.PROXY_LOG_QUEUE_MAX,
      batchSize: config.PROXY_LOG_BATCH_SIZE,
      flushMs: config.PROXY_LOG_FLUSH_MS,
    },
    { journal: requestJournalFor(ctx), metrics: ctx.metrics, afterCommit: opts.afterCommit },
  );
  const dispatcher = new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: Math.min(timeoutMs, 10_000) },
  });
  const caches = new ProxyCaches(config, ctx.changes, logger.child({ component: 'proxy-invalidation' }));
  const admitCall = createAdmission({
    db,
    config,
    keyring: ctx.keyring,
    caches,
    bodyLimit: parseByteSize(config.PROXY_BODY_LIMIT),
  });
  const recorder = createRecorder({ db, writer, logger, keepBytes, price: createProxyPricer() });
  const forward = createForwarder({ dispatcher, recorder, logger, metrics: ctx.metrics, timeoutMs, keepBytes });

  if (config.PROXY_TOKENIZER_PRELOAD) preloadTokenizer();
  ctx.every('proxy-cache-sweep', config.PROXY_CACHE_CLEANUP_INTERVAL_MS, async () => {
    const n = await sweepExpired(db);
    if (n) logger.debug({ deleted: n }, 'proxy cache sweep');
  });
  ctx.every(
    'rate-limit-counter-sweep',
    config.PROXY_CACHE_CLEANUP_INTERVAL_MS,
    async () => void (await sweepCounters(db)),
  );

  async function handle(req: Request, res: Response): Promise<void> {
    const startedAt = performance.now();
    const slug = String(req.params.provider ?? '');
    const provider = findProvider(slug);
    if (!provider) throw notFound(`Provider "${slug}"`, 'unknown_provider');
    const p = principalOf(req);
    if (p.kind !== 'api_key') throw new HttpError(403, 'full_key_required', 'The proxy needs a full-scope API key');
    const opts = parseServiceHeaders(req.headers);
    if (!writer.reserve()) {
      throw new HttpError(
        503,
        'log_queue_full',
        'The gateway is saturated: request log backlog is full; retry shortly',
        {},
        { 'retry-after': '1' },
      );
    }
    let handedOver = false;
    try {
      const a = await admitCall(
        req,
        provider,
        { keyId: p.keyId, projectId: p.projectId, orgId: p.orgId },
        opts,
        startedAt,
      );
      if (a.kind === 'hit') {
        handedOver = true;
        await recorder.serveFromCache(res, a.call, a.hit, a.limitHeaders);
        return;
      }
      // The caller left while we prepared: nothing goes upstream and there is nothing to record.
      if (res.destroyed || req.socket.destroyed) return;
      handedOver = true;
      await forward(req, res, a.call, a.upstream);
    } finally {
      if (!handedOver) writer.release();
    }
  }

  return {
    handle,
    writer,
    dispatcher,
    caches,
    start: () => Promise.all([caches.start(), writer.replay()]).then(() => undefined),
    close: async () => {
      await writer.stop(config.SHUTDOWN_TIMEOUT_MS);
      await caches.stop();
      await dispatcher.close().catch(() => undefined);
    },
  };
}
