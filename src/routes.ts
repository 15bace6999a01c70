import type { Router } from 'express';
import { sessionsRouter } from './api/sessions';
import { tracesRouter } from './api/traces';
import { ingestRouter } from './ingest/router';
import { otlpRouter } from './ingest/otlp/router';
import { promptsRouter } from './api/prompts';
import { requestsRouter } from './api/requests';
import { proxyRouter } from './proxy/router';
import { webhooksRouter } from './api/webhooks';
import type { AppContext } from './context';
import type { RouteContract } from './http/route';
import type { Services } from './services';
import { healthRoutes } from './health/routes';
import { metricsRoutes } from './metrics/routes';
import { openApiRoutes } from './openapi/routes';
import { auditRoutes } from './audit/routes';
import { keyRoutes } from './keys/routes';
import { rateLimitRoutes } from './rate-limits/routes';
import { tenancyRoutes } from './tenancy/routes';

/**
 * Every route of the service, feature by feature: the one list that the app mounts and that the
 * OpenAPI document describes. A feature's `routes.ts` exports `(ctx) => RouteContract[]`.
 */
export function buildRoutes(ctx: AppContext, _services: Services): RouteContract[] {
  const routes: RouteContract[] = [
    ...healthRoutes(ctx),
    ...metricsRoutes(ctx),
    ...tenancyRoutes(ctx),
    ...keyRoutes(ctx),
    ...auditRoutes(ctx),
    ...rateLimitRoutes(ctx),
  ];
  routes.push(...openApiRoutes(() => routes, ctx.config.API_VERSION));
  return routes;
}

// Transitional: features not yet on route contracts.
export const legacyRawRouters: ((ctx: AppContext) => Router)[] = [ingestRouter, otlpRouter, proxyRouter];
export const legacyJsonRouters: ((ctx: AppContext) => Router)[] = [requestsRouter, promptsRouter, tracesRouter, sessionsRouter, webhooksRouter];
