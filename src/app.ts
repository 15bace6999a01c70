import express, { type Express, type RequestHandler, type Router } from 'express';
import { healthRouter } from './api/health';
import { sessionsRouter } from './api/sessions';
import { tracesRouter } from './api/traces';
import { ingestRouter } from './ingest/router';
import { otlpRouter } from './ingest/otlp/router';
import { promptsRouter } from './api/prompts';
import { rateLimitsRouter } from './api/rate-limits';
import { requestsRouter } from './api/requests';
import { proxyRouter } from './proxy/router';
import { tenancyRouters } from './api/tenancy';
import { webhooksRouter } from './api/webhooks';
import type { AppContext } from './context';
import { errorHandler, notFoundHandler, requestContext } from './http/middleware';

/**
 * Routers in mounting order. Routers that must see the raw body (proxy, OTLP) are mounted
 * before the JSON parser; the rest get parsed JSON.
 */
const rawBodyRouters: ((ctx: AppContext) => Router)[] = [ingestRouter, otlpRouter, proxyRouter];
const jsonRouters: ((ctx: AppContext) => Router)[] = [healthRouter, ...tenancyRouters, requestsRouter, promptsRouter, rateLimitsRouter, tracesRouter, sessionsRouter, webhooksRouter];

export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', 'loopback');
  app.use(requestContext(ctx.logger));
  for (const make of rawBodyRouters) app.use(make(ctx));
  app.use(express.json({ limit: ctx.config.JSON_BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] }) as RequestHandler);
  for (const make of jsonRouters) app.use(make(ctx));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
