import { hash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { AppContext } from '../context';
import { route, type Method } from '../http/route';
import type { Proxy } from './proxy';

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
 * The full-key check with a per-process memo: a key that authenticated as an active full-scope key
 * is remembered by its hash until the TTL or until a change to it is announced (revocation,
 * deletion), so the hot path skips the database. Anything else goes through the check every time.
 */
function memoisedFullKey(proxy: Proxy, inner: RequestHandler): RequestHandler {
  return (req, res, next) => {
    geminiQueryKey(req, res, () => undefined);
    const auth = req.headers.authorization;
    const m = auth ? /^Bearer\s+(sl_live_\S+)\s*$/i.exec(auth) : null;
    const token = m
      ? m[1]!
      : !auth
        ? ((req.headers['x-api-key'] ?? req.headers['x-goog-api-key']) as string | undefined)
        : undefined;
    if (!token || !token.startsWith('sl_live_')) return inner(req, res, next);
    const digest = hash('sha256', token, 'hex'); // one-shot: no Hash object per call
    const hit = proxy.caches.auth.peek(digest);
    if (hit) {
      req.principal = { kind: 'api_key', keyId: hit.keyId, projectId: hit.projectId, orgId: hit.orgId, scope: 'full' };
      return next();
    }
    const gen = proxy.caches.auth.currentGeneration;
    inner(req, res, (err?: unknown) => {
      const p = req.principal;
      if (!err && p?.kind === 'api_key' && p.scope === 'full')
        proxy.caches.auth.set(digest, { keyId: p.keyId, projectId: p.projectId, orgId: p.orgId }, gen);
      next(err as Error | undefined);
    });
  };
}

const METHODS: Method[] = ['get', 'post', 'put', 'patch', 'delete'];

/** `/proxy/<provider>/<upstream path>`: the upstream's own API, answered byte for byte (docs/proxy.md). */
export function proxyRoutes(ctx: AppContext, proxy: Proxy) {
  const authenticate = memoisedFullKey(proxy, ctx.auth.fullKey);
  return METHODS.map((method) =>
    route({
      method,
      path: '/proxy/:provider/*rest',
      tag: 'Proxy',
      summary: `${method.toUpperCase()} to the provider's own API`,
      description:
        "The path after the provider and the body follow the provider's API; " +
        "the answer is the provider's, plus `x-service-request-id`. " +
        '`x-service-*` request headers (log-body, cache, prompt-version, user-id, session-id, trace-id, span-id) ' +
        'are read and stripped; without trace-id and span-id, ' +
        'a W3C `traceparent` links the call to that trace and span (and is forwarded). ' +
        'The key may also come in `x-api-key` (Anthropic SDK), `x-goog-api-key` or `?key=` (Gemini).',
      auth: 'full_key',
      authenticate,
      rawBody: true,
      fastPath: true,
      envelope: 'raw',
      // Not validated by the route layer: an unknown provider is the proxy's own 404 `unknown_provider`,
      // and Express hands `*rest` over as an array of segments.
      params: undefined,
      requestContentTypes: method === 'get' || method === 'delete' ? [] : ['application/json'],
      rawResponses: {
        200: {
          description: "The provider's answer (JSON, SSE or NDJSON stream), any status it gave",
          contentType: ['application/json', 'text/event-stream', 'application/x-ndjson'],
          schema: z.unknown(),
          example: {},
        },
      },
      errors: {
        413: 'Body above PROXY_BODY_LIMIT',
        424: 'No key stored for this provider (provider_key_missing)',
        429: "The end user's rate limit is reached (Retry-After, RateLimit-* headers)",
        502: 'The provider is unreachable',
        503: 'The request log is saturated (log_queue_full); retry shortly',
        504: 'The provider did not answer in time',
      },
      handler: ({ req, res }) => proxy.handle(req, res),
    }),
  );
}
