import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { Agent, request as undiciRequest, errors as undiciErrors, type Dispatcher } from 'undici';
import { principalOf } from '../auth/principal';
import type { AppContext } from '../context';
import { HttpError, notFound } from '../http/errors';
import { sendError } from '../http/middleware';
import { getProviderKey } from '../keys/provider-keys';
import { resolvePromptRef } from '../prompts/service';
import { cacheKey, cacheLookup, cacheStore, CACHE_MAX_BODY_BYTES, replayableHeaders, type CachedResponse } from './cache';
import { ResponseCapture, type CaptureResult } from './capture';
import { costUsd } from './cost';
import { downstreamResponseHeaders, headerValue, upstreamRequestHeaders } from './headers';
import { HeldEnd } from './held-end';
import { requestJournalFor } from './journal';
import { RequestLogWriter, type LogEntry, type RequestRow } from './log-writer';
import { maskSecrets } from './masking';
import {
  applyProviderAuth,
  baseUrlFor,
  dialectFor,
  findProvider,
  providerSlugs,
  requestModel,
  requestWantsStream,
  type ProviderDef,
} from './providers';
import { admit, loadRateLimitConfig, rateLimited, type RateLimitConfig } from '../rate-limits/admission';
import { parseByteSize, readRawBody, requestBodyText, storableText } from './request-body';
import { parseServiceHeaders, type ServiceOptions } from './service-headers';
import { countTokens, promptText } from './tokenizer';
import { InvalidationListener } from './invalidation';
import { TtlCache } from './ttl-cache';
import type { Usage } from './usage';

/** Response headers the gateway adds. */
export const RESPONSE_HEADERS = {
  requestId: 'x-service-request-id',
  cacheStatus: 'x-service-cache-status',
} as const;

const PARSE_MAX_BYTES = 32 * 1024 * 1024;

interface CallState {
  id: string;
  startedAt: number; // performance.now()
  createdAt: Date;
  provider: ProviderDef;
  principal: { keyId: string; projectId: string; orgId: string };
  opts: ServiceOptions;
  method: string;
  path: string; // upstream path as logged (no credentials)
  body: Buffer;
  bodyJson: unknown;
  requestText: string;
  model: string;
  wantsStream: boolean;
  promptVersionId: string | null;
  rateLimit: LogEntry['rateLimit'];
}

export interface Proxy {
  handle(req: Request, res: Response): Promise<void>;
  writer: RequestLogWriter;
  dispatcher: Dispatcher;
  listener: InvalidationListener;
  /** Authenticated full-key principals by key hash (see router.ts). */
  authCache: TtlCache<{ keyId: string; projectId: string; orgId: string }>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** SQL that changes what the proxy memoises (knex `query` events, transactions included). */
const LOCAL_WRITE = /^\s*(?:update|delete\s+from|insert\s+into)\s+"?(api_keys|provider_keys|rate_limits)"?/i;

/** Cached "no rate limit configured" (the cache does not keep nulls). */
const NO_LIMIT = { none: true } as const;

export function createProxy(ctx: AppContext): Proxy {
  const { config, db, logger } = ctx;
  const bodyLimit = parseByteSize(config.PROXY_BODY_LIMIT);
  const keepBytes = config.PROXY_LOG_BODY_MAX_BYTES;
  const timeout = config.PROXY_UPSTREAM_TIMEOUT_MS;
  const writer = new RequestLogWriter(db, logger.child({ component: 'request-log' }), {
    queueMax: config.PROXY_LOG_QUEUE_MAX,
    batchSize: config.PROXY_LOG_BATCH_SIZE,
    flushMs: config.PROXY_LOG_FLUSH_MS,
  }, { journal: requestJournalFor(ctx), metrics: ctx.metrics });
  const dispatcher = new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    connect: { timeout: Math.min(timeout, 10_000) },
  });
  // Hot-path lookups are memoised per process and dropped on change notifications (migration 004b);
  // while the listener is down nothing is cached.
  const listener = new InvalidationListener(config.DATABASE_URL, logger.child({ component: 'proxy-invalidation' }));
  const live = () => listener.healthy;
  const ttl = config.PROXY_KEY_CACHE_TTL_MS;
  const authCache = new TtlCache<{ keyId: string; projectId: string; orgId: string }>(ttl, live);
  const providerKeys = new TtlCache<{ apiKey: string | null; baseUrl: string | null }>(ttl, live);
  const rateLimits = new TtlCache<RateLimitConfig | typeof NO_LIMIT>(ttl, live);
  listener.on('api_key', (hash) => authCache.invalidate(hash));
  listener.on('provider_key', (id) => providerKeys.invalidate(id));
  listener.on('rate_limit', (projectId) => rateLimits.invalidate(projectId));
  // Writes made by this very process (dashboard API calls) evict at once, even before their NOTIFY
  // comes back: the caller may send its next proxied call the moment the API answers.
  const onQuery = (q: { sql?: string }) => {
    const m = q.sql ? LOCAL_WRITE.exec(q.sql) : null;
    if (!m) return;
    const table = m[1]!.toLowerCase();
    if (table === 'api_keys' && /last_used_at/i.test(q.sql!) && !/is_active/i.test(q.sql!)) return;
    (table === 'api_keys' ? authCache : table === 'provider_keys' ? providerKeys : rateLimits).clear();
  };
  db.on('query', onQuery);
  listener.onDisconnect(() => {
    authCache.clear();
    providerKeys.clear();
    rateLimits.clear();
  });

  async function handle(req: Request, res: Response): Promise<void> {
    const startedAt = performance.now();
    const slug = String(req.params.provider ?? '');
    const provider = findProvider(slug);
    if (!provider) throw notFound(`Provider "${slug}"`, 'unknown_provider');
    const p = principalOf(req);
    if (p.kind !== 'api_key') throw new HttpError(403, 'full_key_required', 'The proxy needs a full-scope API key');
    const opts = parseServiceHeaders(req.headers);
    const upstreamPath = upstreamPathOf(req.originalUrl, provider);

    if (!writer.reserve()) {
      throw new HttpError(503, 'log_queue_full', 'The gateway is saturated: request log backlog is full; retry shortly', {}, { 'retry-after': '1' });
    }
    let handedOver = false;
    try {
      const body = await readRawBody(req, bodyLimit);
      const { text: requestText, binary } = requestBodyText(body, req.headers['content-type'], headerValue(req.headers['content-encoding']));
      const bodyJson = !binary ? parseJsonMaybe(requestText) : undefined;
      const call: CallState = {
        id: randomUUID(),
        startedAt,
        createdAt: new Date(),
        provider,
        principal: { keyId: p.keyId, projectId: p.projectId, orgId: p.orgId },
        opts,
        method: req.method,
        path: upstreamPath,
        body,
        bodyJson,
        requestText,
        model: requestModel(provider, upstreamPath, bodyJson) ?? '',
        wantsStream: requestWantsStream(provider, upstreamPath, bodyJson),
        promptVersionId: null,
        rateLimit: undefined,
      };

      if (opts.promptRef) {
        const v = await resolvePromptRef(db, [p.projectId], opts.promptRef);
        if (!v) throw notFound('Prompt version', 'prompt_version_not_found');
        call.promptVersionId = v.id;
      }

      const keyEntry = await providerKeys.get(`${p.projectId}:${provider.slug}`, () => getProviderKey(db, p.projectId, provider.slug, ctx.keyring));
      if (!keyEntry || (!keyEntry.apiKey && !provider.selfHosted)) {
        throw new HttpError(
          424,
          'provider_key_missing',
          `No ${provider.name} key is stored for this project: add one with POST /api/v1/provider-keys`,
          { provider: provider.slug },
        );
      }

      // Admission last among the checks, so a call refused for another reason never uses up the end user's quota.
      let limitHeaders: Record<string, string> = {};
      if (opts.userId) {
        const found = await rateLimits.get(p.projectId, async () => (await loadRateLimitConfig(db, p.projectId)) ?? NO_LIMIT);
        const cfg = found && !('none' in found) ? found : null;
        if (cfg) {
          const d = await admit(db, p.projectId, opts.userId, cfg);
          if (!d.allowed) throw rateLimited(d.headers, cfg);
          limitHeaders = d.headers;
          call.rateLimit = { projectId: p.projectId, userId: opts.userId, windowStart: d.windowStart };
        }
      }

      const cacheable = opts.cacheTtl !== null && !call.wantsStream;
      const key = cacheable
        ? cacheKey({ apiKeyId: p.keyId, method: req.method, provider: provider.slug, path: upstreamPath, body })
        : null;
      if (key) {
        const hit = await cacheLookup(db, key);
        if (hit) {
          handedOver = true;
          serveFromCache(res, call, hit, limitHeaders);
          return;
        }
      }

      // The caller left while we prepared: nothing goes upstream and there is nothing to record.
      if (res.destroyed || req.socket.destroyed) return;
      const url = baseUrlFor(provider, config, keyEntry.baseUrl) + upstreamPath;
      const headers = upstreamRequestHeaders(req.headers);
      applyProviderAuth(provider, headers, keyEntry.apiKey);
      const extra: Record<string, string> = { ...limitHeaders, [RESPONSE_HEADERS.requestId]: call.id };
      if (opts.cacheTtl !== null) extra[RESPONSE_HEADERS.cacheStatus] = 'MISS';
      handedOver = true;
      await forward(req, res, call, url, headers, extra, key);
    } finally {
      if (!handedOver) writer.release();
    }
  }

  function serveFromCache(res: Response, call: CallState, hit: CachedResponse, limitHeaders: Record<string, string>): void {
    const usage = hit.usage;
    const text = call.opts.logBody === 'full' ? hit.body.toString('utf8') : '';
    record(call, {
      status: hit.statusCode,
      model: hit.model || call.model,
      usage,
      estimated: false,
      cost: 0,
      responseText: text,
      cacheHit: true,
      streamed: false,
      ttfbMs: null,
      error: null,
    });
    // After record(): the row is journaled before the caller has the answer.
    res.writeHead(hit.statusCode, {
      ...hit.headers,
      ...limitHeaders,
      'content-length': String(hit.body.length),
      [RESPONSE_HEADERS.cacheStatus]: 'HIT',
      [RESPONSE_HEADERS.requestId]: call.id,
    });
    res.end(hit.body);
  }

  async function forward(
    req: Request,
    res: Response,
    call: CallState,
    url: string,
    headers: Record<string, string | string[]>,
    extra: Record<string, string>,
    key: string | null,
  ): Promise<void> {
    const abort = new AbortController();
    let finished = false;
    const onClientGone = () => {
      if (!finished) abort.abort();
    };
    res.once('close', onClientGone);

    let upstream: Dispatcher.ResponseData;
    try {
      upstream = await undiciRequest(url, {
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body: call.body.length || !['GET', 'HEAD'].includes(req.method) ? call.body : null,
        dispatcher,
        signal: abort.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
    } catch (err) {
      finished = true;
      const { status, code, message } = classifyUpstreamError(err, abort.signal.aborted);
      record(call, {
        status,
        model: call.model,
        usage: null,
        estimated: false,
        cost: null,
        responseText: '',
        cacheHit: false,
        streamed: false,
        ttfbMs: null,
        error: code,
      });
      if (!res.headersSent && !res.destroyed) {
        sendError(res, new HttpError(status, code, message, { provider: call.provider.slug }, { ...extra }));
      }
      return;
    }

    const ttfbMs = Math.round(performance.now() - call.startedAt);
    const status = upstream.statusCode;
    const outHeaders = { ...downstreamResponseHeaders(upstream.headers), ...extra };
    const contentType = headerValue(upstream.headers['content-type']);
    const contentEncoding = headerValue(upstream.headers['content-encoding']);
    const capture = new ResponseCapture({
      dialect: dialectFor(call.provider, call.path),
      contentType,
      contentEncoding,
      keepBytes: call.opts.logBody === 'full' ? keepBytes : 0,
      parseMaxBytes: PARSE_MAX_BYTES,
    });
    const streamed = capture.kind === 'sse' || capture.kind === 'ndjson' || call.wantsStream;

    res.writeHead(status, outHeaders);
    if (streamed) res.flushHeaders();

    const body = upstream.body;
    const held = new HeldEnd(res, outHeaders['content-length']);
    await new Promise<void>((resolve) => {
      let error: string | null = null;
      const done = () => {
        if (finished) return;
        finished = true;
        res.off('drain', onDrain);
        resolve();
        // The last byte waits for finalize: the request row is journaled before the caller has it all.
        finalize(call, capture, status, streamed, ttfbMs, error, key, upstream.headers)
          .catch((err) => logger.error({ err, requestId: call.id }, 'proxy finalize failed'))
          .finally(() => held.release());
      };
      const onDrain = () => body.resume();
      res.on('drain', onDrain);
      body.on('data', (chunk: Buffer) => {
        // The caller first, then the gateway's copy.
        if (!held.write(chunk)) body.pause();
        capture.push(chunk);
      });
      body.once('end', done);
      body.once('error', (err) => {
        error = abort.signal.aborted ? 'client_closed' : err instanceof undiciErrors.BodyTimeoutError ? 'upstream_timeout' : 'upstream_stream_error';
        res.destroy();
        done();
      });
      res.once('close', () => {
        if (!res.writableFinished && !finished) {
          error = 'client_closed';
          body.destroy();
          done();
        }
      });
    });
  }

  async function finalize(
    call: CallState,
    capture: ResponseCapture,
    status: number,
    streamed: boolean,
    ttfbMs: number,
    error: string | null,
    key: string | null,
    upstreamHeaders: Record<string, string | string[] | undefined>,
  ): Promise<void> {
    const result: CaptureResult = await capture.end();
    const acc = result.acc;
    let usage: Usage | null = acc.usage;
    let estimated = false;
    const generated = status < 400 ? acc.generatedText() : '';
    // Never record a call that produced tokens as zero tokens: count them when the provider did not.
    if (status < 400 && (generated || streamed) && (!usage || (usage.completionTokens === 0 && generated))) {
      const completion = countTokens(generated);
      const prompt = usage?.promptTokens || countTokens(promptText(call.bodyJson));
      if (completion > 0 || prompt > 0) {
        usage = {
          promptTokens: prompt,
          completionTokens: completion,
          totalTokens: prompt + completion,
          cacheReadTokens: usage?.cacheReadTokens ?? 0,
          cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
        };
        estimated = true;
      }
    }
    const model = acc.model || call.model;
    const cost = costUsd(call.provider, model, usage ?? zeroUsage);
    record(call, {
      status,
      model,
      usage,
      estimated,
      cost,
      responseText: result.text,
      cacheHit: false,
      streamed,
      ttfbMs,
      error: error ?? (result.tooLarge ? 'response_too_large_to_parse' : null),
    });

    if (
      key &&
      call.opts.cacheTtl !== null &&
      !streamed &&
      !error &&
      status === 200 &&
      result.kind === 'json' &&
      result.json !== undefined &&
      result.decoded &&
      result.decoded.length < CACHE_MAX_BODY_BYTES
    ) {
      const hdrs = replayableHeaders(downstreamResponseHeaders(upstreamHeaders));
      cacheStore(db, {
        key,
        projectId: call.principal.projectId,
        apiKeyId: call.principal.keyId,
        provider: call.provider.slug,
        path: call.path,
        ttlSeconds: call.opts.cacheTtl,
        statusCode: 200,
        headers: hdrs,
        body: result.decoded,
        model,
        usage: acc.usage,
      }).catch((err) => logger.warn({ err, requestId: call.id }, 'proxy cache store failed'));
    }
  }

  function record(
    call: CallState,
    r: {
      status: number;
      model: string;
      usage: Usage | null;
      estimated: boolean;
      cost: number | null;
      responseText: string;
      cacheHit: boolean;
      streamed: boolean;
      ttfbMs: number | null;
      error: string | null;
    },
  ): void {
    const mode = call.opts.logBody;
    const u = r.usage ?? zeroUsage;
    const row: RequestRow = {
      id: call.id,
      org_id: call.principal.orgId,
      project_id: call.principal.projectId,
      api_key_id: call.principal.keyId,
      provider: call.provider.slug,
      model: storableText(r.model, 500),
      method: call.method,
      path: storableText(call.path, 4000),
      prompt_tokens: u.promptTokens,
      completion_tokens: u.completionTokens,
      total_tokens: u.totalTokens,
      cache_read_tokens: u.cacheReadTokens,
      cache_write_tokens: u.cacheWriteTokens,
      cost_usd: call.provider.selfHosted ? null : r.cost,
      latency_ms: Math.max(0, Math.round(performance.now() - call.startedAt)),
      ttfb_ms: r.ttfbMs,
      status_code: r.status,
      trace_id: call.opts.traceId,
      span_id: call.opts.spanId,
      user_id: mode === 'none' ? null : call.opts.userId,
      session_id: mode === 'none' ? null : call.opts.sessionId,
      request_body: mode === 'full' ? maskSecrets(storableText(call.requestText, keepBytes)) : '',
      response_body: mode === 'full' ? maskSecrets(storableText(r.responseText, keepBytes + 200)) : '',
      log_mode: mode,
      cache_hit: r.cacheHit,
      streamed: r.streamed,
      tokens_estimated: r.estimated,
      self_hosted: call.provider.selfHosted,
      prompt_version_id: call.promptVersionId,
      error: r.error,
      created_at: call.createdAt.toISOString(),
    };
    writer.enqueue({ row, rateLimit: r.cacheHit ? undefined : call.rateLimit });
  }

  return {
    handle,
    writer,
    dispatcher,
    listener,
    authCache,
    start: () => Promise.all([listener.start(), writer.replay()]).then(() => undefined),
    close: async () => {
      db.off('query', onQuery);
      await writer.stop(config.SHUTDOWN_TIMEOUT_MS);
      await listener.stop();
      await dispatcher.close().catch(() => undefined);
    },
  };
}

const zeroUsage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

function parseJsonMaybe(text: string): unknown {
  const t = text.trimStart();
  if (!t || (t[0] !== '{' && t[0] !== '[')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/**
 * The upstream path and query from the raw URL (byte-exact, no re-encoding), minus the
 * `/proxy/<slug>` prefix. Dot segments are refused so a path cannot climb out of a base URL's
 * prefix; Gemini's `key` query parameter (a credential) is removed.
 */
export function upstreamPathOf(originalUrl: string, provider: ProviderDef): string {
  const afterProxy = originalUrl.indexOf('/', '/proxy/'.length);
  let rest = afterProxy === -1 ? '/' : originalUrl.slice(afterProxy);
  const q = rest.indexOf('?');
  const pathPart = q === -1 ? rest : rest.slice(0, q);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    throw new HttpError(400, 'invalid_path', 'The upstream path is not valid percent-encoding');
  }
  if (decoded.split(/[/\\]/).some((seg) => seg === '..' || seg === '.')) {
    throw new HttpError(400, 'invalid_path', 'The upstream path must not contain dot segments');
  }
  if (q !== -1 && provider.slug === 'gemini') {
    const params = new URLSearchParams(rest.slice(q + 1));
    if (params.has('key')) {
      params.delete('key');
      const qs = params.toString();
      rest = pathPart + (qs ? `?${qs}` : '');
    }
  }
  return rest;
}

function classifyUpstreamError(err: unknown, aborted: boolean): { status: number; code: string; message: string } {
  if (aborted) return { status: 499, code: 'client_closed', message: 'The client closed the connection' };
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return { status: 504, code: 'upstream_timeout', message: 'The provider did not answer in time' };
  }
  if (err instanceof undiciErrors.ConnectTimeoutError) {
    return { status: 502, code: 'upstream_unreachable', message: 'Could not connect to the provider (connect timeout)' };
  }
  const code = (err as { code?: string })?.code;
  return {
    status: 502,
    code: 'upstream_unreachable',
    message: `Could not reach the provider${code ? ` (${code})` : ''}`,
  };
}

export { providerSlugs };
