import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import { errors as undiciErrors, type Dispatcher } from 'undici';
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
import { createTargets } from './target';

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
  /** The provider's base URL (no trailing slash) and the path (with query) under it. */
  base: string;
  path: string;
  headers: Record<string, string | string[]>;
  /** Gateway headers added to the answer (request id, cache status, rate-limit headers). */
  extra: Record<string, string>;
  cacheKey: string | null;
}

/**
 * Sends the call upstream through undici's `dispatch` and streams the answer back as it arrives,
 * keeping a copy for the log. Its callbacks write each chunk straight to the caller: no response
 * stream, promise or abort signal per call, which `undici.request` adds. The last byte is held until
 * the row is journaled (and a cacheable answer stored). The time the gateway adds (before
 * forwarding + after the upstream's last byte) goes to the metrics.
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
  const targetOf = createTargets();
  return function forward(req: Request, res: Response, call: CallState, up: Upstream): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const sentAt = performance.now();
      const slug = call.provider.slug;
      let controller: Dispatcher.DispatchController | null = null;
      let callerGone = false;
      // The outcome is decided: later callbacks (an abort's error, a late end) change nothing.
      let finished = false;
      let streaming: { data(chunk: Buffer): void; end(error: string | null): void } | null = null;

      // No answer from upstream (unreachable, timed out, refused, the caller left first).
      const fail = (err: unknown) => {
        if (finished) return;
        finished = true;
        const { status, code, message } = classifyUpstreamError(err, callerGone);
        upstreamTime(slug, code).observe((performance.now() - sentAt) / 1000);
        recorder
          .record(call, {
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
          })
          .then(() => {
            if (!res.headersSent && !res.destroyed)
              sendError(res, new HttpError(status, code, message, { provider: slug }, { ...up.extra }));
            resolve();
          }, reject);
      };

      const start = (c: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders) => {
        const ttfbMs = Math.round(performance.now() - call.startedAt);
        const outHeaders = { ...downstreamResponseHeaders(headers), ...up.extra };
        const capture = new ResponseCapture({
          dialect: dialectFor(call.provider, call.path),
          contentType: headerValue(headers['content-type']),
          contentEncoding: headerValue(headers['content-encoding']),
          keepBytes: call.opts.logBody === 'full' ? keepBytes : 0,
          parseMaxBytes: PARSE_MAX_BYTES,
        });
        const streamed = capture.kind === 'sse' || capture.kind === 'ndjson' || call.wantsStream;
        res.writeHead(status, outHeaders);
        if (streamed) res.flushHeaders();
        const held = new HeldEnd(res, outHeaders['content-length']);
        const onDrain = () => c.resume();
        res.on('drain', onDrain);
        streaming = {
          data(chunk) {
            // The caller first, then the gateway's copy.
            if (!held.write(chunk)) c.pause();
            capture.push(chunk);
          },
          end(error) {
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
                upstreamHeaders: headers,
              })
              .catch((err) => logger.error({ err, requestId: call.id }, 'proxy finalize failed'))
              .finally(() => {
                held.release();
                addedTime(slug).observe((sentAt - call.startedAt + performance.now() - upstreamEnd) / 1000);
              });
          },
        };
      };

      res.once('close', () => {
        if (finished || res.writableFinished) return;
        callerGone = true;
        if (streaming) streaming.end('client_closed');
        else fail(new undiciErrors.RequestAbortedError());
        controller?.abort(new undiciErrors.RequestAbortedError());
      });

      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (callerGone) c.abort(new undiciErrors.RequestAbortedError());
        },
        onResponseStart(c, status, headers) {
          if (status < 200 || finished) return; // informational answers (100, 103) are not the answer
          try {
            start(c, status, headers);
          } catch (err) {
            // Headers the caller's side refuses (Node's checks in writeHead): the route's error handler answers.
            finished = true;
            c.abort(err as Error);
            reject(err as Error);
          }
        },
        onResponseData(_c, chunk) {
          if (!finished) streaming?.data(chunk);
        },
        onResponseEnd() {
          if (streaming) streaming.end(null);
          else fail(new Error('The provider ended the exchange without an answer'));
        },
        onResponseError(_c, err) {
          if (!streaming) return fail(err);
          if (finished) return;
          res.destroy();
          streaming.end(
            callerGone
              ? 'client_closed'
              : err instanceof undiciErrors.BodyTimeoutError
                ? 'upstream_timeout'
                : 'upstream_stream_error',
          );
        },
      };

      let target;
      try {
        target = targetOf(up.base, up.path);
      } catch (err) {
        return fail(err);
      }
      dispatcher.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: req.method as Dispatcher.HttpMethod,
          headers: up.headers,
          body: call.body.length || (req.method !== 'GET' && req.method !== 'HEAD') ? call.body : null,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        handler,
      );
    });
  };
}
