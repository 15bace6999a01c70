import {
  Router,
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { z } from 'zod';
import type { Metrics } from '../metrics/metrics';
import { HttpError, notFound, validationError } from './errors';
import { requireRole, requireWriteAccess, type SchemeGuards } from './guards';
import { Reply, type Page, type RouteContract, type Scope } from './route';
import { toHttpError } from './middleware';
import { assertStorable } from './text';

export interface MountOptions {
  auth: SchemeGuards;
  metrics: Metrics;
  /** Check every response against its contract (on in tests): a mismatch is a 500 naming the issue. */
  checkResponses: boolean;
}

/** The auth middleware a scheme implies, then the role or write rule of the contract. */
function guards(c: RouteContract, auth: SchemeGuards): RequestHandler[] {
  const out: RequestHandler[] = [];
  if (c.authenticate) out.push(c.authenticate);
  else if (c.auth === 'jwt') out.push(auth.jwt());
  else if (c.auth === 'jwt_user') out.push(auth.jwt({ org: 'none' }));
  else if (c.auth === 'read') out.push(auth.read);
  else if (c.auth === 'api_key') out.push(auth.apiKey);
  else if (c.auth === 'full_key') out.push(auth.fullKey);
  if (c.roles) out.push(requireRole(...c.roles));
  if (c.write) out.push(requireWriteAccess());
  return out;
}

function parsePart(schema: z.ZodType, value: unknown, where: string): unknown {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(r.error, where);
  return r.data;
}

/**
 * Labels the HTTP duration histogram with the route template (never the raw path: bounded
 * cardinality). Labelled children are kept per status, so the proxy's hot path hashes no labels.
 */
function timed(c: RouteContract, metrics: Metrics): RequestHandler {
  const method = c.method.toUpperCase();
  const children = new Map<string, { observe(v: number): void }>();
  const child = (status: string) => {
    let h = children.get(status);
    if (!h) children.set(status, (h = metrics.httpDuration.labels(method, c.path, status)));
    return h;
  };
  return (_req, res, next) => {
    const started = performance.now();
    res.once('close', () =>
      child(res.writableFinished ? String(res.statusCode) : 'aborted').observe((performance.now() - started) / 1000),
    );
    next();
  };
}

function handle(c: RouteContract, opts: MountOptions): RequestHandler {
  const envelope = c.envelope ?? 'data';
  return (req: Request, res: Response, next: NextFunction) => {
    (async () => {
      let params: unknown = req.params;
      if (c.params) {
        const r = c.params.safeParse(req.params);
        // A malformed id names nothing that exists: 404, like an id of another organization.
        if (!r.success) throw notFound(c.notFound ?? 'Resource');
        params = r.data;
      }
      let query: unknown;
      if (c.query) {
        assertStorable(req.query, 'query');
        query = parsePart(c.query, req.query, 'query');
      }
      let body: unknown;
      if (c.body) {
        assertStorable(req.body, 'body');
        body = parsePart(c.body, req.body, 'body');
      }
      let headers: unknown;
      if (c.headers) {
        const given = Object.fromEntries(Object.keys(c.headers.shape).map((n) => [n, req.get(n)]));
        headers = parsePart(c.headers, given, 'header');
      }
      let scope: Scope | undefined;
      if (c.scope)
        scope = await opts.auth.projectScope(
          req.principal!,
          c.scope === 'project' ? projectIdOf(query, body) : undefined,
        );
      const out = await c.handler({
        params,
        query,
        body,
        headers,
        principal: req.principal!,
        scope,
        req,
        res,
      } as never);
      if (envelope === 'raw') return;
      let status = c.status ?? 200;
      let data = out;
      if (out instanceof Reply) {
        status = out.status;
        data = out.data;
        for (const [k, v] of Object.entries(out.headers)) res.setHeader(k, v);
      }
      const payload =
        envelope === 'page'
          ? { success: true, data: (data as Page<unknown>).data, next_cursor: (data as Page<unknown>).next_cursor }
          : { success: true, data };
      if (opts.checkResponses) checkResponse(c, payload, req);
      res.status(status).json(payload);
    })().catch(next);
  };
}

/** The `project_id` a scoped call names: the query's, else the body's (a create names it there). */
function projectIdOf(query: unknown, body: unknown): unknown {
  const of = (v: unknown) =>
    v !== null && typeof v === 'object' ? (v as { project_id?: unknown }).project_id : undefined;
  return of(query) ?? of(body);
}

/** Tests only: the JSON the client will see must match the contract. */
function checkResponse(c: RouteContract, payload: { data: unknown }, req: Request) {
  if (!c.response) return;
  const json = JSON.parse(JSON.stringify(payload.data ?? null)) as unknown;
  const items = (c.envelope ?? 'data') === 'page' ? (json as unknown[]) : [json];
  for (const item of items) {
    const r = c.response.safeParse(item);
    if (!r.success) {
      const issues = r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
      req.log?.error({ route: `${c.method.toUpperCase()} ${c.path}`, issues }, 'response does not match its contract');
      throw new HttpError(
        500,
        'response_contract_violation',
        `Response of ${c.method.toUpperCase()} ${c.path} does not match its contract`,
        { issues },
      );
    }
  }
}

/** A route's own error encoding: the shared mapping to an HttpError, then the route's body. */
function ownErrors(send: NonNullable<RouteContract['errorBody']>['send']): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const e = toHttpError(err, req);
    for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
    send(e, req, res);
  };
}

/** One route's handlers: timing → auth → before → validate → handler → envelope. */
export function routeChain(c: RouteContract, opts: MountOptions): RequestHandler[] {
  return [timed(c, opts.metrics), ...guards(c, opts.auth), ...(c.before ?? []), handle(c, opts)];
}

/** An Express router holding these routes. */
export function mountRoutes(routes: RouteContract[], opts: MountOptions): Router {
  const router = Router();
  // A route with its own error body answers its chain's errors itself (fast-path routes have none).
  for (const c of routes)
    router[c.method](c.path, ...routeChain(c, opts), ...(c.errorBody ? [ownErrors(c.errorBody.send)] : []));
  return router;
}
