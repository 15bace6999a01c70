import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger';
import { dataException, errorBody, HttpError } from './errors';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (the caller's `x-request-id` when well formed) and a child logger. */
export function requestContext(logger: Logger): RequestHandler {
  // `req.log` is made on first use, by a getter on the app's request prototype: most calls log
  // nothing, and a child logger (bindings, redaction) costs more than the rest of this middleware.
  const lazy = new WeakSet<object>();
  const install = (proto: object) => {
    lazy.add(proto);
    const own = new WeakMap<object, Logger>();
    Object.defineProperty(proto, 'log', {
      configurable: true,
      get(this: Request) {
        let l = own.get(this);
        if (!l) own.set(this, (l = logger.child({ reqId: this.id })));
        return l;
      },
      set(this: Request, l: Logger) {
        own.set(this, l);
      },
    });
  };
  return (req, res, next) => {
    const proto = Object.getPrototypeOf(req) as object;
    if (!lazy.has(proto)) install(proto);
    const incoming = req.headers['x-request-id'];
    req.id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', req.id);
    const started = performance.now();
    res.on('finish', () => {
      const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug';
      if (!logger.isLevelEnabled(level)) return;
      const ms = performance.now() - started;
      req.log[level](
        { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    });
    next();
  };
}

export const sendError = (res: Response, err: HttpError) => {
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  res.status(err.status).json(errorBody(err));
};

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, 'route_not_found', `No route for ${req.method} ${req.path}`));
};

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  expose?: boolean;
}

/**
 * Maps body-parser failures and refused values to clear 4xx errors; anything unexpected is a 500
 * without internals (logged). Shared by the app's error handler and routes that encode their own
 * error bodies (`errorBody.send`).
 */
export function toHttpError(err: unknown, req: Request): HttpError {
  if (err instanceof HttpError) return err;
  const e = err as BodyParserError;
  if (e?.type === 'entity.parse.failed') return new HttpError(400, 'invalid_json', 'Request body is not valid JSON');
  if (e?.type === 'entity.too.large') return new HttpError(413, 'payload_too_large', 'Request body is too large');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported')
    return new HttpError(415, 'unsupported_encoding', e.message);
  if (e?.type === 'request.aborted') return new HttpError(400, 'request_aborted', 'Request was aborted');
  // The router decodes path parameters itself and throws a URIError (status 400) on `%ff%fe`.
  if (e instanceof URIError)
    return new HttpError(400, 'invalid_path_encoding', 'The request path is not valid percent-encoded UTF-8');
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose)
    return new HttpError(e.status, 'bad_request', e.message);
  const refused = dataException(err);
  if (refused) {
    // A gap in a route contract (src/http/ids.ts, src/http/schemas.ts): still the caller's 400, but worth fixing.
    (req.log ?? console).warn(
      {
        err,
        sqlstate: (err as { code: string }).code,
        method: req.method,
        route: (req.route as { path?: string } | undefined)?.path ?? req.path,
      },
      'database refused input the route contract accepted',
    );
    return refused;
  }
  (req.log ?? console).error({ err }, 'unhandled error');
  return new HttpError(500, 'internal_error', 'Internal server error');
}

export const errorHandler: ErrorRequestHandler = (err: unknown, req: Request, res: Response, _next: NextFunction) => {
  if (res.headersSent) {
    req.log?.error({ err }, 'error after headers were sent');
    res.destroy();
    return;
  }
  sendError(res, toHttpError(err, req));
};
