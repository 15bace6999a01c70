import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { requireFullKey } from '../auth/middleware';
import { principalOf } from '../auth/principal';
import type { AppContext } from '../context';
import { HttpError } from '../http/errors';
import { limitsFrom } from './limits';
import { batchEnvelopeSchema, batchItemSchema, clientId, invalid, toOp } from './schemas';
import { ingestWriter } from './service';
import type { IngestOp, IngestUnit, OpResult } from './types';

/**
 * SDK ingest: POST/PATCH /ingest/traces, /ingest/spans and POST /ingest/batch (docs/ingest.md).
 * Mounted before the app-wide JSON parser: ingest has its own, larger body limit, and only parses
 * after the API key is accepted.
 */
export function ingestRouter(ctx: AppContext): Router {
  const limits = limitsFrom(ctx.config);
  const writer = ingestWriter(ctx);
  const auth = requireFullKey(ctx);
  const json = jsonBody(limits.maxRequestBytes);
  const router = Router();

  const unitFor = (req: Request, ops: IngestOp[]): IngestUnit => {
    const p = principalOf(req);
    if (p.kind !== 'api_key') throw new HttpError(403, 'full_key_required', 'Ingest needs a full-scope API key');
    return { orgId: p.orgId, projectId: p.projectId, source: 'sdk', ops };
  };

  const single = (kind: IngestOp['op'], status: 'create' | 'update') => async (req: Request, res: Response) => {
    const pathId = status === 'update' ? parseId(req.params.id) : undefined;
    const op = toOp(kind, req.body, pathId, limits.maxFieldBytes);
    const [result] = await writer.submit(unitFor(req, [op]));
    if (!result!.ok) throw new HttpError(result!.status, result!.code, result!.error);
    res.status(result!.status).json({ success: true, data: describe(op, result!) });
  };

  router.post('/ingest/traces', auth, json, single('trace.create', 'create'));
  router.patch('/ingest/traces/:id', auth, json, single('trace.update', 'update'));
  router.post('/ingest/spans', auth, json, single('span.create', 'create'));
  router.patch('/ingest/spans/:id', auth, json, single('span.update', 'update'));

  router.post('/ingest/batch', auth, json, async (req, res) => {
    const envelope = batchEnvelopeSchema(limits.maxBatchOps).safeParse(req.body);
    if (!envelope.success) {
      const tooMany = envelope.error.issues.some((i) => i.code === 'too_big' && i.path[0] === 'operations');
      if (tooMany) {
        throw new HttpError(413, 'too_many_operations', `A batch holds at most ${limits.maxBatchOps} operations`, { limit: limits.maxBatchOps });
      }
      const first = envelope.error.issues[0];
      throw invalid('body', first?.path.join('.') ?? '', first?.message ?? 'invalid value');
    }
    const items = envelope.data.operations;
    const results: ({ index: number; id: string | null } & Record<string, unknown>)[] = new Array(items.length);
    const ops: IngestOp[] = [];
    const opIndex: number[] = [];
    items.forEach((raw, index) => {
      const where = `operations[${index}]`;
      const item = batchItemSchema.safeParse(raw);
      const rawId = typeof (raw as { id?: unknown })?.id === 'string' ? ((raw as { id: string }).id) : null;
      if (!item.success) {
        const first = item.error.issues[0];
        results[index] = { index, id: rawId, status: 400, code: 'validation_error', error: invalid(where, first?.path.join('.') ?? '', first?.message ?? 'invalid value').message };
        return;
      }
      try {
        ops.push(toOp(item.data.op, item.data.body, item.data.id, limits.maxFieldBytes, `${where}.body`));
        opIndex.push(index);
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        results[index] = { index, id: item.data.id, status: err.status, code: err.code, error: err.message };
      }
    });
    const stored = ops.length ? await writer.submit(unitFor(req, ops)) : [];
    stored.forEach((r, i) => {
      const index = opIndex[i]!;
      const op = ops[i]!;
      results[index] = r.ok
        ? { index, id: op.id, status: r.status, ...describe(op, r), op: op.op }
        : { index, id: op.id, status: r.status, code: r.code, error: r.error };
    });
    const allOk = results.every((r) => (r.status as number) < 300);
    res.status(allOk ? 200 : 207).json({ success: true, data: { results } });
  });

  return router;
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
  const parse = express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] }) as RequestHandler;
  return (req: Request, res: Response, next: NextFunction) => {
    // An empty body (no content, whatever its type) falls through to the payload check: 400.
    if (req.is(['application/json', 'application/*+json']) === false && req.headers['content-length'] !== '0') {
      return next(new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json'));
    }
    parse(req, res, (err?: unknown) => {
      const e = err as { type?: string } | undefined;
      if (e?.type === 'entity.too.large') {
        return next(new HttpError(413, 'request_too_large', `Request body exceeds the ${limit} byte limit of /ingest requests`, { limit_bytes: limit }));
      }
      next(err);
    });
  };
}
