import { createHash } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { requireFullKey } from '../auth/middleware';
import type { AppContext } from '../context';
import { startCacheSweeper } from './cache';
import { createProxy, type Proxy } from './proxy';
import { sweepCounters } from '../rate-limits/admission';
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

/**
 * requireFullKey with a per-process memo: a key that authenticated as an active full-scope key is
 * remembered by its hash (the api_keys.key_hash) until the TTL or until the api_keys trigger
 * announces a change to it (revocation, deletion), so the hot path skips the database.
 * Anything else (unknown, revoked, public, malformed) goes through requireFullKey every time.
 */
function cachedFullKey(proxy: Proxy, inner: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const auth = req.headers.authorization;
    const m = auth ? /^Bearer\s+(sl_live_\S+)\s*$/i.exec(auth) : null;
    const token = m ? m[1]! : !auth ? ((req.headers['x-api-key'] ?? req.headers['x-goog-api-key']) as string | undefined) : undefined;
    if (!token || !token.startsWith('sl_live_')) return inner(req, res, next);
    const hash = createHash('sha256').update(token, 'utf8').digest('hex');
    const hit = proxy.authCache.peek(hash);
    if (hit) {
      req.principal = { kind: 'api_key', keyId: hit.keyId, projectId: hit.projectId, orgId: hit.orgId, scope: 'full' };
      return next();
    }
    const gen = proxy.authCache.currentGeneration;
    inner(req, res, (err?: unknown) => {
      const p = req.principal;
      if (!err && p?.kind === 'api_key' && p.scope === 'full') proxy.authCache.set(hash, { keyId: p.keyId, projectId: p.projectId, orgId: p.orgId }, gen);
      next(err as Error | undefined);
    });
  };
}

/** `/proxy/<provider>/<upstream path>`: raw-body router, mounted before the JSON parser. */
export function proxyRouter(ctx: AppContext): Router {
  const proxy = createProxy(ctx);
  proxies.set(ctx, proxy);
  void proxy.start(); // caching turns on once the invalidation listener is connected
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
  router.all('/proxy/:provider/*rest', geminiQueryKey, cachedFullKey(proxy, requireFullKey(ctx)), (req, res) => proxy.handle(req, res));
  return router;
}
