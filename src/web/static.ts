import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, Router } from 'express';

/** Paths the dashboard never answers: the API, the proxy, ingest, OTLP and the service's own pages. */
const NOT_THE_APP = /^\/(api|proxy|ingest|v1|share|health|metrics)(\/|$)/;

/**
 * Whether the Accept header names `text/html` itself (with q > 0). `*\/*` does not count: curl,
 * fetch and API clients send it, and an unknown path must give them the 404 envelope, not the app.
 */
function namesHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (type !== 'text/html') return false;
    const q = params.find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/**
 * The dashboard (web/, built into WEB_DIR) at `/`: hashed assets cached for a year, index.html never
 * cached, and every other GET that asks for HTML answered with index.html so the app's own URLs
 * (/requests?model=…, /traces/<id>) load directly. Without a build the api runs as before.
 */
export function dashboard(dir: string): RequestHandler | null {
  const root = path.resolve(dir);
  const index = path.join(root, 'index.html');
  if (!existsSync(index)) return null;
  const r = Router();
  r.use(
    '/assets',
    express.static(path.join(root, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: false }),
  );
  r.get(/.*/, (req, res, next) => {
    if (NOT_THE_APP.test(req.path) || !namesHtml(req.headers.accept)) return next();
    res.set('cache-control', 'no-cache');
    res.sendFile(index);
  });
  return r;
}

/**
 * A share link opened in a browser (`Accept: text/html` first) gets the app, which renders the
 * shared resource read-only from the same URL's JSON; API clients keep getting JSON.
 */
export function sharePage(dir: string): RequestHandler | null {
  const index = path.join(path.resolve(dir), 'index.html');
  if (!existsSync(index)) return null;
  return (req, res, next) => {
    if (
      req.method !== 'GET' ||
      !/^\/share\/[^/]+$/.test(req.path) ||
      !namesHtml(req.headers.accept) ||
      req.accepts(['json', 'html']) !== 'html'
    )
      return next();
    res.set('cache-control', 'no-cache');
    res.sendFile(index);
  };
}
