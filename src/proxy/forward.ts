import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { request as undiciRequest, errors as undiciErrors, type Dispatcher } from 'undici';
import { HttpError } from '../http/errors';
import { sendError } from '../http/middleware';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics/metrics';
import { classifyUpstreamError, type CallState } from './call';
import { ResponseCapture } from './capture';
import { downstreamResponseHeaders, headerValue } from './headers';
import { HeldEnd } from './held-end';
import { dialectFor } from '../providers/providers';
import type { Recorder } from './record';

const PARSE_MAX_BYTES = 32 * 1024 * 1024;

export interface ForwardDeps {
  dispatcher: Dispatcher;
  recorder: Recorder;
  logger: Logger;
  metrics: Metrics;
  timeoutMs: number;
  keepBytes: number;
}

export interface Upstream {
  url: string;
  headers: Record<string, string | string[]>;
  /** Gateway headers added to the answer (request id, cache status, rate-limit headers). */
  extra: Record<string, string>;
  cacheKey: string | null;
}

/**
 * Cancels the upstream request when the caller goes. undici takes an EventEmitter as its signal,
 * which costs a call less than an AbortController (an EventTarget, its listener options and event).
 */
class Cancel extends EventEmitter {
  aborted = false;
  cancel(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

/**
 * Sends the call upstream and streams the answer back as it arrives, keeping a copy for the log.
 * The last byte is held until the row is journaled (and a cacheable answer stored). The time the
 * gateway adds (before forwarding + after the upstream's last byte) goes to the metrics.
 */
export function createForwarder({ dispatcher, recorder, logger, metrics, timeoutMs, keepBytes }: ForwardDeps) {
  // Labelled children kept per provider (and status), so recording hashes no labels per call.
  const upstreamTimes = new Map<string, { observe(v: number): void }>();
  const addedTimes = new Map<string, { observe(v: number): void }>();
  const upstreamTime = (provider: string, status: string) => {
    const k = `${provider} ${status}`;
    let h = upstreamTimes.get(k);
    if (!h) upstreamTimes.set(k, (h = metrics.proxyUpstreamDuration.labels(provider, status)));
    return h;
  };
  const addedTime = (provider: string) => {
    let h = addedTimes.get(provider);
    if (!h) addedTimes.set(provider, (h = metrics.proxyAddedLatency.labels(provider)));
    return h;
  };
  return async function forward(req: Request, res: Response, call: CallState, up: Upstream): Promise<void> {
    const abort = new Cancel();
    let finished = false;
    // Set once the answer streams: what the caller's leaving means then (one listener for both stages).
    let onCallerGone: (() => void) | null = null;
    res.once('close', () => {
      if (finished) return;
      if (onCallerGone) onCallerGone();
      else abort.cancel();
    });
    const sentAt = performance.now();
    const slug = call.provider.slug;

    let upstream: Dispatcher.ResponseData;
    try {
      upstream = await undiciRequest(up.url, {
        method: req.method as Dispatcher.HttpMethod,
        headers: up.headers,
        body: call.body.length || !['GET', 'HEAD'].includes(req.method) ? call.body : null,
        dispatcher,
        signal: abort,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      finished = true;
      const { status, code, message } = classifyUpstreamError(err, abort.aborted);
      upstreamTime(slug, code).observe((performance.now() - sentAt) / 1000);
      await recorder.record(call, {
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
      if (!res.headersSent && !res.destroyed)
        sendError(res, new HttpError(status, code, message, { provider: slug }, { ...up.extra }));
      return;
    }

    const ttfbMs = Math.round(performance.now() - call.startedAt);
    const status = upstream.statusCode;
    const outHeaders = { ...downstreamResponseHeaders(upstream.headers), ...up.extra };
    const capture = new ResponseCapture({
      dialect: dialectFor(call.provider, call.path),
      contentType: headerValue(upstream.headers['content-type']),
      contentEncoding: headerValue(upstream.headers['content-encoding']),
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
      const onDrain = () => body.resume();
      const done = () => {
        if (finished) return;
        finished = true;
        res.off('drain', onDrain);
        resolve();
        const upstreamEnd = performance.now();
        upstreamTime(slug, String(status)).observe((upstreamEnd - sentAt) / 1000);
        recorder
          .finalize(call, capture, {
            status,
            streamed,
            ttfbMs,
            error,
            cacheKey: up.cacheKey,
            upstreamHeaders: upstream.headers,
          })
          .catch((err) => logger.error({ err, requestId: call.id }, 'proxy finalize failed'))
          .finally(() => {
            held.release();
            addedTime(slug).observe((sentAt - call.startedAt + performance.now() - upstreamEnd) / 1000);
          });
      };
      res.on('drain', onDrain);
      body.on('data', (chunk: Buffer) => {
        // The caller first, then the gateway's copy.
        if (!held.write(chunk)) body.pause();
        capture.push(chunk);
      });
      body.once('end', done);
      body.once('error', (err) => {
        error = abort.aborted
          ? 'client_closed'
          : err instanceof undiciErrors.BodyTimeoutError
            ? 'upstream_timeout'
            : 'upstream_stream_error';
        res.destroy();
        done();
      });
      onCallerGone = () => {
        if (res.writableFinished) return;
        error = 'client_closed';
        body.destroy();
        done();
      };
    });
  };
}
