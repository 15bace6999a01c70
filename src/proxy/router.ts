import { Router, type RequestHandler } from 'express';
import { requireFullKey } from '../auth/middleware';
import type { AppContext } from '../context';
import { startCacheSweeper } from './cache';
import { createProxy, type Proxy } from './proxy';
import { sweepCounters } from './rate-limit';
import { preloadTokenizer } from './tokenizer';

/** The proxies of each app context, so tests and benchmarks can wait for the log writer. */
const proxies = new WeakMap<AppContext, Proxy>();
export const proxyOf = (ctx: AppContext): Proxy | undefined => proxies.get(ctx);

/**
 * Gemini's REST examples pass the key as `?key=`; accept the service key there too (the key is
 * removed from the forwarded URL) when no header carries one.
 */
const geminiQueryKey: RequestHandler = (req, _res, next) => {
  if (req.params.provider === 'gemini' && !req.headers.authorization && !req.headers['x-goog-api-key']) {
    const q = req.originalUrl.indexOf('?');
    if (q !== -1) {
      const key = new URLSearchParams(req.originalUrl.slice(q + 1)).get('key');
      if (key) req.headers['x-goog-api-key'] = key;
    }
  }
  next();
};

/** `/proxy/<provider>/<upstream path>`: raw-body router, mounted before the JSON parser. */
export function proxyRouter(ctx: AppContext): Router {
  const proxy = createProxy(ctx);
  proxies.set(ctx, proxy);
  if (ctx.config.PROXY_TOKENIZER_PRELOAD) preloadTokenizer();
  const sweeper = startCacheSweeper(ctx.db, ctx.config.PROXY_CACHE_CLEANUP_INTERVAL_MS, ctx.logger);
  const counterSweep = setInterval(() => {
    sweepCounters(ctx.db).catch((err) => ctx.logger.warn({ err }, 'rate-limit counter sweep failed'));
  }, ctx.config.PROXY_CACHE_CLEANUP_INTERVAL_MS);
  counterSweep.unref();
  ctx.onShutdown(async () => {
    sweeper.stop();
    clearInterval(counterSweep);
    await proxy.close();
  });

  const router = Router();
  router.all('/proxy/:provider/*rest', geminiQueryKey, requireFullKey(ctx), (req, res) => proxy.handle(req, res));
  return router;
}
