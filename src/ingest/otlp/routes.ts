import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Auth } from '../../auth/middleware';
import { HttpError } from '../../http/errors';
import { route } from '../../http/route';
import type { IngestService } from '../service';
import { encodeResponse, encodeStatus } from './decode';
import { CONTENT_TYPES, exportResponseSchema, grpcCode, rpcStatusSchema } from './schemas';
import { receiveExport, type Format } from './service';

function formatOf(req: Request): Format | null {
  const type = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return null;
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
export function otlpRoutes(ingest: IngestService, auth: Pick<Auth, 'fullKey'>) {
  const { limits } = ingest;
  const raw = express.raw({ type: () => true, limit: limits.maxOtlpBytes, inflate: true }) as RequestHandler;

  // The decompressed-size limit named in the 413 (the shared mapping does not know it).
  const parse: RequestHandler = (req, res, next) =>
    raw(req, res, (err?: unknown) =>
      next(
        (err as { type?: string } | undefined)?.type === 'entity.too.large'
          ? new HttpError(
              413,
              'payload_too_large',
              `Body exceeds the ${limits.maxOtlpBytes} byte limit (after decompression)`,
            )
          : err,
      ),
    );

  /** The content type decides the encoding of every answer, so it is checked before the key. */
  const negotiateThenAuth: RequestHandler = (req, res, next) => {
    const format = formatOf(req);
    res.locals.otlpFormat = format ?? 'json';
    if (!format)
      return next(
        new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/x-protobuf or application/json'),
      );
    auth.fullKey(req, res, next);
  };

  /** Every refusal, from auth to storage, as a google.rpc.Status in the request's encoding. */
  const sendStatus = (err: HttpError, _req: Request, res: Response) => {
    const format = (res.locals.otlpFormat as Format | undefined) ?? 'json';
    res
      .status(err.status)
      .type(CONTENT_TYPES[format])
      .send(encodeStatus({ code: grpcCode(err.status), message: err.message }, format));
  };

  async function receive(req: Request, res: Response) {
    const format = res.locals.otlpFormat as Format;
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const out = await receiveExport(ingest, req.principal!, format, body);
    if (out.rejected > 0)
      req.log.info({ rejected: out.rejected, accepted: out.accepted, errors: out.errors }, 'otlp spans rejected');
    res.status(200).type(CONTENT_TYPES[format]).send(encodeResponse(out.response, format));
  }

  return [
    route({
      method: 'post',
      path: '/v1/traces',
      tag: 'OTLP',
      summary: 'OTLP/HTTP trace export (protobuf or JSON)',
      auth: 'full_key',
      rawBody: true,
      envelope: 'raw',
      requestContentTypes: ['application/x-protobuf', 'application/json'],
      authenticate: negotiateThenAuth,
      before: [parse],
      rawResponses: {
        200: {
          description: 'ExportTraceServiceResponse in the request encoding; partial_success counts refused spans',
          contentType: ['application/x-protobuf', 'application/json'],
          schema: exportResponseSchema,
          example: {},
        },
      },
      errorBody: {
        contentTypes: ['application/json', 'application/x-protobuf'],
        schema: rpcStatusSchema,
        example: { code: 16, message: 'Missing credentials: send Authorization: Bearer <token>', details: [] },
        send: sendStatus,
      },
      errors: {
        413: 'Body above OTLP_MAX_REQUEST_BYTES after decompression',
        415: 'Content-Type or Content-Encoding not supported',
        503: 'Storage unavailable or overloaded; retry after Retry-After',
      },
      handler: ({ req, res }) => receive(req, res),
    }),
  ];
}
