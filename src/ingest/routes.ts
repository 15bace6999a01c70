import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { HttpError } from '../http/errors';
import { Reply, route } from '../http/route';
import {
  batchEnvelopeSchema,
  batchItemSchema,
  batchResultSchema,
  BATCH_OPS,
  clientId,
  ingestAckSchema,
  invalid,
  toOp,
} from './schemas';
import type { IngestService } from './service';
import type { IngestOp, OpResult } from './types';

/**
 * SDK ingest: POST/PATCH /ingest/traces, /ingest/spans and POST /ingest/batch (docs/ingest.md).
 * Mounted before the app-wide JSON parser: ingest has its own, larger body limit, and only parses
 * after the API key is accepted. Bodies are validated by toOp, not by the route layer: ingest
 * cleans text PostgreSQL cannot store instead of refusing it, and has its own depth limit.
 */
export function ingestRoutes(ingest: IngestService) {
  const { limits } = ingest;
  const common = {
    tag: 'Ingest',
    auth: 'full_key' as const,
    rawBody: true,
    before: [jsonBody(limits.maxRequestBytes)],
    requestContentTypes: ['application/json'],
    errors: {
      413: 'Body or field too large',
      415: 'Content-Type is not JSON',
      503: 'Storage unavailable or overloaded; retry after Retry-After',
    },
  };

  const single = (kind: IngestOp['op'], path: string, summary: string) => {
    const update = kind.endsWith('update');
    return route({
      ...common,
      method: update ? 'patch' : 'post',
      path,
      summary,
      status: update ? 200 : 201,
      ...(update ? {} : { otherStatuses: { 200: 'Replayed create: the object exists, nothing changed' } }),
      response: ingestAckSchema,
      handler: async ({ principal, req }) => {
        let op: IngestOp;
        try {
          op = toOp(kind, req.body, update ? parseId(req.params.id) : undefined, limits.maxFieldBytes);
        } catch (err) {
          ingest.countRefused(kind, 'sdk');
          throw err;
        }
        const [result] = await ingest.submit(principal, 'sdk', [op]);
        if (!result!.ok) throw new HttpError(result!.status, result!.code, result!.error);
        return new Reply(result!.status, describe(op, result!));
      },
    });
  };

  return [
    single('trace.create', '/ingest/traces', 'Create a trace'),
    single('trace.update', '/ingest/traces/:id', 'Update or end a trace'),
    single('span.create', '/ingest/spans', 'Create a span'),
    single('span.update', '/ingest/spans/:id', 'Update or end a span'),
    route({
      ...common,
      method: 'post',
      path: '/ingest/batch',
      summary: 'Several operations in one request, each answered on its own',
      otherStatuses: { 207: 'Some operations failed: see each result' },
      response: batchResultSchema,
      handler: async ({ principal, req }) => {
        const results = await batch(ingest, principal, req.body);
        return new Reply(results.every((r) => (r.status as number) < 300) ? 200 : 207, { results });
      },
    }),
  ];
}

type ItemResult = { index: number; id: string | null } & Record<string, unknown>;

async function batch(
  ingest: IngestService,
  principal: Parameters<IngestService['submit']>[0],
  body: unknown,
): Promise<ItemResult[]> {
  const { limits } = ingest;
  const envelope = batchEnvelopeSchema(limits.maxBatchOps).safeParse(body);
  if (!envelope.success) {
    const tooMany = envelope.error.issues.some((i) => i.code === 'too_big' && i.path[0] === 'operations');
    if (tooMany) {
      throw new HttpError(413, 'too_many_operations', `A batch holds at most ${limits.maxBatchOps} operations`, {
        limit: limits.maxBatchOps,
      });
    }
    const first = envelope.error.issues[0];
    throw invalid('body', first?.path.join('.') ?? '', first?.message ?? 'invalid value');
  }
  const items = envelope.data.operations;
  const results: ItemResult[] = new Array(items.length);
  const ops: IngestOp[] = [];
  const opIndex: number[] = [];
  items.forEach((raw, index) => {
    const where = `operations[${index}]`;
    const item = batchItemSchema.safeParse(raw);
    const rawId = typeof (raw as { id?: unknown })?.id === 'string' ? (raw as { id: string }).id : null;
    const rawOp = (raw as { op?: unknown })?.op;
    if (!item.success) {
      const first = item.error.issues[0];
      if ((BATCH_OPS as readonly unknown[]).includes(rawOp)) ingest.countRefused(rawOp as IngestOp['op'], 'sdk');
      results[index] = {
        index,
        id: rawId,
        status: 400,
        code: 'validation_error',
        error: invalid(where, first?.path.join('.') ?? '', first?.message ?? 'invalid value').message,
      };
      return;
    }
    try {
      ops.push(toOp(item.data.op, item.data.body, item.data.id, limits.maxFieldBytes, `${where}.body`));
      opIndex.push(index);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      ingest.countRefused(item.data.op, 'sdk');
      results[index] = { index, id: item.data.id, status: err.status, code: err.code, error: err.message };
    }
  });
  const stored = await ingest.submit(principal, 'sdk', ops);
  stored.forEach((r, i) => {
    const index = opIndex[i]!;
    const op = ops[i]!;
    results[index] = r.ok
      ? { index, id: op.id, status: r.status, ...describe(op, r), op: op.op }
      : { index, id: op.id, status: r.status, code: r.code, error: r.error };
  });
  return results;
}

function parseId(raw: unknown): string {
  const r = clientId.safeParse(raw);
  if (!r.success) throw invalid('params', 'id', r.error.issues[0]?.message ?? 'invalid id');
  return r.data;
}

function describe(op: IngestOp, r: Extract<OpResult, { ok: true }>) {
  const base: Record<string, unknown> = { id: op.id, object: op.op.startsWith('trace') ? 'trace' : 'span' };
  if (op.op === 'span.create') base.trace_id = op.fields.trace_id;
  if (op.op.endsWith('create')) base.created = r.created === true;
  else base.pending_create = r.pending_create === true;
  return base;
}

/** JSON body with the ingest size cap; a refusal says which limit. */
function jsonBody(limit: number): RequestHandler {
  const parse = express.json({
    limit,
    strict: true,
    type: ['application/json', 'application/*+json'],
  }) as RequestHandler;
  return (req: Request, res: Response, next: NextFunction) => {
    // An empty body (no content, whatever its type) falls through to the payload check: 400.
    if (req.is(['application/json', 'application/*+json']) === false && req.headers['content-length'] !== '0') {
      return next(new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json'));
    }
    parse(req, res, (err?: unknown) => {
      const e = err as { type?: string } | undefined;
      if (e?.type === 'entity.too.large') {
        return next(
          new HttpError(413, 'request_too_large', `Request body exceeds the ${limit} byte limit of /ingest requests`, {
            limit_bytes: limit,
          }),
        );
      }
      next(err);
    });
  };
}
