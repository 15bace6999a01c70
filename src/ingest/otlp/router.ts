import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { requireFullKey } from '../../auth/middleware';
import { principalOf } from '../../auth/principal';
import type { AppContext } from '../../context';
import { HttpError } from '../../http/errors';
import { limitsFrom } from '../limits';
import { ingestWriter } from '../service';
import { decodeJson, decodeProtobuf, encodeResponse, encodeStatus, OtlpDecodeError, type ExportTraceServiceRequest } from './decode';
import { mapExportRequest } from './map';

type Format = 'protobuf' | 'json';
const CONTENT_TYPES: Record<Format, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

function formatOf(req: Request): Format | null {
  const type = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return null;
}

/** HTTP status → google.rpc.Code, for the Status body OTLP clients read. */
function grpcCode(status: number): number {
  if (status === 400 || status === 413 || status === 415) return 3; // INVALID_ARGUMENT
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  if (status === 404) return 5; // NOT_FOUND
  if (status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  return 13; // INTERNAL
}

/**
 * OTLP/HTTP trace receiver, POST /v1/traces (docs/ingest.md). Binary protobuf or JSON, optionally
 * gzip/deflate/br compressed; the full-scope API key in `Authorization: Bearer`. Answered after the
 * spans are committed (durable on acknowledgement): 200 with an ExportTraceServiceResponse in the
 * request's encoding, whose partial_success counts spans refused as invalid; 400 for an undecodable
 * body, 413 above OTLP_MAX_REQUEST_BYTES decompressed, 415 for other content types, 503 +
 * Retry-After when storage is unavailable or overloaded (exporters retry those). Error bodies are
 * google.rpc.Status in the request's encoding, as the OTLP specification asks.
 */
export function otlpRouter(ctx: AppContext): Router {
  const limits = limitsFrom(ctx.config);
  const writer = ingestWriter(ctx);
  const router = Router();
  const raw = express.raw({ type: () => true, limit: limits.maxOtlpBytes, inflate: true }) as RequestHandler;

  const negotiate: RequestHandler = (req, res, next) => {
    const format = formatOf(req);
    res.locals.otlpFormat = format ?? 'json';
    if (!format) {
      return next(new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/x-protobuf or application/json'));
    }
    next();
  };

  router.post('/v1/traces', negotiate, requireFullKey(ctx), raw, async (req: Request, res: Response) => {
    const format = res.locals.otlpFormat as Format;
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let message: ExportTraceServiceRequest;
    try {
      message = format === 'protobuf' ? decodeProtobuf(body) : decodeJson(body);
    } catch (err) {
      if (err instanceof OtlpDecodeError) throw new HttpError(400, 'invalid_otlp', err.message);
      throw err;
    }
    const mapped = mapExportRequest(message, limits.maxFieldBytes);
    const p = principalOf(req);
    if (p.kind !== 'api_key') throw new HttpError(403, 'full_key_required', 'OTLP ingest needs a full-scope API key');
    const results = mapped.ops.length ? await writer.submit({ orgId: p.orgId, projectId: p.projectId, source: 'otlp', ops: mapped.ops }) : [];
    // Spans the database refused (rare: validated already) are reported like invalid ones.
    let refused = 0;
    mapped.ops.forEach((op, i) => {
      if (op.op === 'span.create' && results[i] && !results[i]!.ok) refused++;
    });
    const rejected = mapped.rejected + refused;
    const errors = refused ? [...mapped.errors, 'the database refused some spans'] : mapped.errors;
    const response = rejected > 0 ? { partialSuccess: { rejectedSpans: rejected, errorMessage: errors.join('; ') } } : {};
    if (rejected > 0) req.log.info({ rejected, accepted: mapped.accepted - refused, errors }, 'otlp spans rejected');
    res.status(200).type(CONTENT_TYPES[format]).send(encodeResponse(response, format));
  });

  const otlpErrors: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const format = (res.locals.otlpFormat as Format | undefined) ?? 'json';
    let status = 500;
    let message = 'Internal server error';
    if (err instanceof HttpError) {
      status = err.status;
      message = err.message;
      for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
    } else {
      const e = err as { status?: number; type?: string; message?: string };
      if (e?.type === 'entity.too.large') {
        status = 413;
        message = `Body exceeds the ${limits.maxOtlpBytes} byte limit (after decompression)`;
      } else if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
        status = e.status;
        message = e.message ?? 'Bad request';
      } else {
        req.log.error({ err }, 'otlp ingest failed');
      }
    }
    res.status(status).type(CONTENT_TYPES[format]).send(encodeStatus({ code: grpcCode(status), message }, format));
  };
  router.use('/v1/traces', otlpErrors);
  return router;
}
