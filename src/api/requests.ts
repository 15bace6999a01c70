import { Router } from 'express';
import { z } from 'zod';
import { requireReadAccess, resolveProjectScope } from '../auth/middleware';
import type { AppContext } from '../context';
import { badRequest, notFound } from '../http/errors';
import { parseParams, parseQuery } from '../http/validate';

/**
 * The request log: GET /api/v1/requests (filters, newest first, cursor pagination) and
 * GET /api/v1/requests/:id. JWT, full key or public key; scoped to the caller's project(s).
 */
const LIST_COLUMNS = [
  'id',
  'project_id',
  'api_key_id',
  'provider',
  'model',
  'method',
  'path',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cost_usd',
  'latency_ms',
  'ttfb_ms',
  'status_code',
  'trace_id',
  'span_id',
  'user_id',
  'session_id',
  'log_mode',
  'cache_hit',
  'streamed',
  'tokens_estimated',
  'self_hosted',
  'prompt_version_id',
  'error',
  'created_at',
];

const boolParam = z.enum(['true', 'false']).transform((v) => v === 'true');

export const listRequestsQuery = z
  .object({
    project_id: z.string().optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    provider: z.string().max(50).optional(),
    model: z.string().max(500).optional(),
    /** An exact status (200) or a class (2xx, 4xx, 5xx). */
    status: z
      .string()
      .regex(/^([1-5]\d\d|[1-5]xx)$/, 'an HTTP status like 200 or a class like 4xx')
      .optional(),
    user_id: z.string().max(256).optional(),
    session_id: z.string().max(256).optional(),
    trace_id: z.string().max(128).optional(),
    prompt_version_id: z.string().uuid().optional(),
    cache_hit: boolParam.optional(),
    include_bodies: boolParam.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().max(200).optional(),
  })
  .strict();

interface Cursor {
  t: string; // created_at, ISO with microseconds
  id: string;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeCursor(s: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Cursor;
    if (typeof c.t !== 'string' || typeof c.id !== 'string' || !/^[0-9a-f-]{36}$/i.test(c.id) || Number.isNaN(Date.parse(c.t))) throw new Error();
    return c;
  } catch {
    throw badRequest('cursor is not valid: pass next_cursor from the previous page unchanged', 'invalid_cursor');
  }
}

export function requestsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = requireReadAccess(ctx);

  router.get('/api/v1/requests', auth, async (req, res) => {
    const q = parseQuery(listRequestsQuery, req);
    const scope = await resolveProjectScope(ctx, req);
    const cols = q.include_bodies ? [...LIST_COLUMNS, 'request_body', 'response_body'] : LIST_COLUMNS;
    const query = ctx.db('requests')
      // Microsecond-exact created_at for the cursor: JS dates keep only milliseconds.
      .select([...cols, ctx.db.raw(`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_t`)])
      .whereIn('project_id', scope.projectIds)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(q.limit + 1);
    if (q.from) query.where('created_at', '>=', q.from);
    if (q.to) query.where('created_at', '<', q.to);
    if (q.provider) query.where('provider', q.provider);
    if (q.model) query.where('model', q.model);
    if (q.status) {
      if (q.status.endsWith('xx')) {
        const base = Number(q.status[0]) * 100;
        query.where('status_code', '>=', base).andWhere('status_code', '<', base + 100);
      } else query.where('status_code', Number(q.status));
    }
    if (q.user_id) query.where('user_id', q.user_id);
    if (q.session_id) query.where('session_id', q.session_id);
    if (q.trace_id) query.where('trace_id', q.trace_id);
    if (q.prompt_version_id) query.where('prompt_version_id', q.prompt_version_id);
    if (q.cache_hit !== undefined) query.where('cache_hit', q.cache_hit);
    if (q.cursor) {
      const c = decodeCursor(q.cursor);
      query.whereRaw('(created_at, id) < (?::timestamptz, ?::uuid)', [c.t, c.id]);
    }
    const rows = await query;
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    const nextCursor = rows.length > q.limit && last ? encodeCursor({ t: last.cursor_t, id: last.id }) : null;
    res.json({ success: true, data: page.map(({ cursor_t: _c, ...r }) => r), next_cursor: nextCursor });
  });

  router.get('/api/v1/requests/:id', auth, async (req, res) => {
    const { id } = parseParams(z.object({ id: z.string() }), req);
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound('Request');
    const scope = await resolveProjectScope(ctx, req);
    const row = await ctx.db('requests')
      .select([...LIST_COLUMNS, 'request_body', 'response_body'])
      .where({ id })
      .whereIn('project_id', scope.projectIds)
      .first();
    if (!row) throw notFound('Request');
    res.json({ success: true, data: row });
  });

  return router;
}
