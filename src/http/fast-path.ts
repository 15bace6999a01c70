import { IncomingMessage, type RequestListener, ServerResponse, type ServerOptions } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import type { RouteContract } from './route';

/**
 * A shortcut past Express's router for routes marked `fastPath` (the proxy): the hottest path
 * of the service skips the router's layer walk, prefix trimming and parameter processing, which
 * cost more than the rest of Express on a proxied call. Everything that decides the answer stays
 * the same code: the app-wide middleware given here, then the route's own chain as `mountRoutes`
 * builds it (timing, auth, before, handler), and the app's error handler. Requests the shortcut is
 * not sure about (encoded or odd paths, HEAD, other methods) go through Express as before.
 *
 * Only the shape `/<literal>/:<param>/*<rest>` is supported; anything else is refused at start-up.
 */
export interface FastRoute {
  contract: RouteContract;
  chain: RequestHandler[];
}

interface Compiled {
  prefix: string;
  param: string;
  rest: string;
  byMethod: Map<string, RequestHandler[]>;
}

const SHAPE = /^(\/[a-z0-9-]+\/):([A-Za-z_]\w*)\/\*([A-Za-z_]\w*)$/;
// A segment the router would take as is: no percent-encoding to decode, nothing odd.
const PLAIN_SEGMENT = /^[A-Za-z0-9._~-]+$/;

function compile(routes: FastRoute[], before: RequestHandler[]): Compiled[] {
  const byPath = new Map<string, Compiled>();
  for (const { contract, chain } of routes) {
    const m = SHAPE.exec(contract.path);
    if (!m) throw new Error(`fastPath: unsupported path ${contract.path}`);
    let c = byPath.get(contract.path);
    if (!c) byPath.set(contract.path, (c = { prefix: m[1]!, param: m[2]!, rest: m[3]!, byMethod: new Map() }));
    c.byMethod.set(contract.method.toUpperCase(), [...before, ...chain]);
  }
  return [...byPath.values()];
}

/** Runs Express-style handlers in order; an error (thrown, passed or rejected) goes to `done`. */
function run(chain: RequestHandler[], req: Request, res: Response, done: (err?: unknown) => void): void {
  let i = 0;
  const next = (err?: unknown): void => {
    if (err !== undefined && err !== null) return done(err);
    const h = chain[i++];
    if (!h) return done();
    try {
      const out = h(req, res, next) as unknown;
      if (out && typeof (out as Promise<void>).then === 'function') (out as Promise<void>).then(undefined, done);
    } catch (e) {
      done(e);
    }
  };
  next();
}

/** A request listener with the server options it wants (`listen` passes them to `http.createServer`). */
export type AppListener = RequestListener & { serverOptions?: ServerOptions };

/**
 * Constructors whose requests and responses are born with Express's prototypes. Express would
 * otherwise re-prototype each pair (`setPrototypeOf` on objects with dozens of fields: a new hidden
 * class per call, and slower property access after it); on these its own `setPrototypeOf` is a no-op.
 */
function expressClasses(proto: { req: object; res: object }): ServerOptions {
  function Req(this: unknown, ...args: unknown[]): object {
    return Reflect.construct(IncomingMessage, args, Req) as object;
  }
  function Res(this: unknown, ...args: unknown[]): object {
    return Reflect.construct(ServerResponse, args, Res) as object;
  }
  Req.prototype = proto.req;
  Res.prototype = proto.res;
  return {
    IncomingMessage: Req as unknown as typeof IncomingMessage,
    ServerResponse: Res as unknown as typeof ServerResponse,
  };
}

/**
 * The server's request listener: fast routes first, Express for the rest. `before` is the
 * app-wide middleware those routes need (request id and logger); `onError` the app's error handler.
 */
export function withFastPath(
  app: Express,
  routes: FastRoute[],
  before: RequestHandler[],
  onError: ErrorRequestHandler,
): AppListener {
  const compiled = compile(routes, before);
  if (!compiled.length) return app as unknown as RequestListener;
  const proto = {
    req: (app as unknown as { request: object }).request,
    res: (app as unknown as { response: object }).response,
  };
  const serverOptions = expressClasses(proto);
  const listener: AppListener = (rawReq: IncomingMessage, rawRes: ServerResponse) => {
    const url = rawReq.url ?? '';
    for (const c of compiled) {
      if (!url.startsWith(c.prefix)) continue;
      const chain = c.byMethod.get(rawReq.method ?? '');
      const slash = url.indexOf('/', c.prefix.length);
      const segment = slash === -1 ? '' : url.slice(c.prefix.length, slash);
      if (!chain || slash === -1 || slash + 1 >= url.length || url[slash + 1] === '?' || !PLAIN_SEGMENT.test(segment))
        break;
      // What Express's app.handle and router give every request, so handlers see the same objects.
      // A server made without `serverOptions` (a test's own) hands plain Node objects.
      const native = Object.getPrototypeOf(rawReq) === proto.req;
      const req = (native ? rawReq : Object.setPrototypeOf(rawReq, proto.req)) as Request;
      const res = (native ? rawRes : Object.setPrototypeOf(rawRes, proto.res)) as Response;
      (req as { res?: Response }).res = res;
      (res as { req?: Request }).req = req;
      res.locals = Object.create(null) as Record<string, unknown>;
      req.originalUrl = url;
      req.baseUrl = '';
      const q = url.indexOf('?');
      const rest = url.slice(slash + 1, q === -1 ? undefined : q).split('/');
      req.params = { [c.param]: segment, [c.rest]: rest } as unknown as Request['params'];
      const done = (err?: unknown) => {
        if (err !== undefined) return onError(err, req, res, () => undefined);
        // The chain ended without answering: impossible for a handler route, but never hang.
        if (!res.headersSent) onError(new Error('fast path: no handler answered'), req, res, () => undefined);
      };
      return run(chain, req, res, done);
    }
    (app as unknown as RequestListener)(rawReq, rawRes);
  };
  listener.serverOptions = serverOptions;
  return listener;
}
