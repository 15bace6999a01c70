import type { Response } from 'express';
import type { Knex } from 'knex';
import type { Logger } from '../logger';
import { cacheStore, CACHE_MAX_BODY_BYTES, replayableHeaders, type CachedResponse } from './cache';
import { RESPONSE_HEADERS, zeroUsage, type CallState, type Outcome } from './call';
import type { ResponseCapture } from './capture';
import type { ProxyPricer } from '../providers/cost';
import { downstreamResponseHeaders } from './headers';
import type { RequestLogWriter, RequestRow } from './log-writer';
import { maskSecrets } from './masking';
import { storableText } from './request-body';
import { countTokens, promptText } from './tokenizer';
import type { Usage } from '../providers/usage';

export interface RecorderDeps {
  db: Knex;
  writer: RequestLogWriter;
  logger: Logger;
  keepBytes: number;
  price: ProxyPricer;
}

/**
 * Turns the outcome of a call into its request row (body mode, masking, storable text) and hands
 * it to the writer, whose journal has it before the caller gets the last byte. Also the cache's
 * two ends: serving a hit, and storing a cacheable answer before its last byte is released, so
 * the next identical call finds it.
 */
export function createRecorder({ db, writer, logger, keepBytes, price }: RecorderDeps) {
  /** Resolves once the row is journaled: only then may the caller get its last byte. */
  function record(call: CallState, r: Outcome): Promise<void> {
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
      properties: mode === 'none' ? null : call.opts.properties,
      cost_saved_usd:
        r.cacheHit && !call.provider.selfHosted ? price(call.provider, r.model, r.usage ?? zeroUsage) : null,
    };
    return writer.enqueue({ row, rateLimit: r.cacheHit ? undefined : call.rateLimit });
  }

  /** A cache hit: recorded first (journaled), then answered without calling the provider. */
  async function serveFromCache(
    res: Response,
    call: CallState,
    hit: CachedResponse,
    limitHeaders: Record<string, string>,
  ): Promise<void> {
    await record(call, {
      status: hit.statusCode,
      model: hit.model || call.model,
      usage: hit.usage,
      estimated: false,
      cost: 0,
      responseText: call.opts.logBody === 'full' ? hit.body.toString('utf8') : '',
      cacheHit: true,
      streamed: false,
      ttfbMs: null,
      error: null,
    });
    res.writeHead(hit.statusCode, {
      ...hit.headers,
      ...limitHeaders,
      'content-length': String(hit.body.length),
      [RESPONSE_HEADERS.cacheStatus]: 'HIT',
      [RESPONSE_HEADERS.requestId]: call.id,
    });
    res.end(hit.body);
  }

  /** After the upstream's last byte and before the caller's: usage, cost, the row, the cache entry. */
  async function finalize(
    call: CallState,
    capture: ResponseCapture,
    r: {
      status: number;
      streamed: boolean;
      ttfbMs: number;
      error: string | null;
      cacheKey: string | null;
      upstreamHeaders: Record<string, string | string[] | undefined>;
    },
  ): Promise<void> {
    const result = await capture.end();
    const acc = result.acc;
    let usage: Usage | null = acc.usage;
    let estimated = false;
    const generated = r.status < 400 ? acc.generatedText() : '';
    // Never record a call that produced tokens as zero tokens: count them when the provider did not.
    if (r.status < 400 && (generated || r.streamed) && (!usage || (usage.completionTokens === 0 && generated))) {
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
    const journaled = record(call, {
      status: r.status,
      model,
      usage,
      estimated,
      cost: price(call.provider, model, usage ?? zeroUsage),
      responseText: result.text,
      cacheHit: false,
      streamed: r.streamed,
      ttfbMs: r.ttfbMs,
      error: r.error ?? (result.tooLarge ? 'response_too_large_to_parse' : null),
    });

    const cacheable =
      r.cacheKey &&
      call.opts.cacheTtl !== null &&
      !r.streamed &&
      !r.error &&
      r.status === 200 &&
      result.kind === 'json' &&
      result.json !== undefined &&
      result.decoded &&
      result.decoded.length < CACHE_MAX_BODY_BYTES;
    if (!cacheable) return journaled;
    // Awaited: the caller's last byte waits for the entry, so a call made after this one ends hits it.
    await cacheStore(db, {
      key: r.cacheKey!,
      projectId: call.principal.projectId,
      apiKeyId: call.principal.keyId,
      provider: call.provider.slug,
      path: call.path,
      ttlSeconds: call.opts.cacheTtl!,
      statusCode: 200,
      headers: replayableHeaders(downstreamResponseHeaders(r.upstreamHeaders)),
      body: result.decoded!,
      model,
      usage: acc.usage,
    }).catch((err) => logger.warn({ err, requestId: call.id }, 'proxy cache store failed'));
    await journaled;
  }

  return { record, serveFromCache, finalize };
}

export type Recorder = ReturnType<typeof createRecorder>;
