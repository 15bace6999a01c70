import express, { type RequestHandler } from 'express';
import type { AppContext } from './context';
import { type AppListener, withFastPath } from './http/fast-path';
import { mountRoutes, routeChain } from './http/mount';
import { errorHandler, notFoundHandler, requestContext } from './http/middleware';
import type { RouteContract } from './http/route';
import { dashboard, sharePage } from './web/static';

/**
 * The api: every route contract of every feature (src/routes.ts), mounted in one place. Routes that
 * read the raw body (proxy, OTLP, ingest) are mounted before the JSON parser; the rest get parsed JSON.
 * @public loaded lazily by src/runtime.ts (api roles only)
 */
export function createApp(ctx: AppContext, routes: RouteContract[]): AppListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', 'loopback');
  const context = requestContext(ctx.logger);
  app.use(context);
  const share = sharePage(ctx.config.WEB_DIR);
  if (share) app.use(share);
  const opts = { auth: ctx.auth, metrics: ctx.metrics, checkResponses: ctx.config.CONTRACT_CHECK_RESPONSES };
  app.use(
    mountRoutes(
      routes.filter((r) => r.rawBody),
      opts,
    ),
  );
  app.use(
    express.json({
      limit: ctx.config.JSON_BODY_LIMIT,
      strict: true,
      type: ['application/json', 'application/*+json'],
    }) as RequestHandler,
  );
  app.use(
    mountRoutes(
      routes.filter((r) => !r.rawBody),
      opts,
    ),
  );
  const web = dashboard(ctx.config.WEB_DIR);
  if (web) app.use(web);
  app.use(notFoundHandler);
  app.use(errorHandler);
  const fast = routes.filter((r) => r.fastPath).map((contract) => ({ contract, chain: routeChain(contract, opts) }));
  return withFastPath(app, fast, [context], errorHandler);
}
