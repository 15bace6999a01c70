import type { Router } from 'express';
import { rateLimitsRouter } from './api/rate-limits';
import { proxyRouter } from './proxy/router';
import { tenancyRouters } from './api/tenancy';
import { webhooksRouter } from './api/webhooks';
import type { AppContext } from './context';
import type { RouteContract } from './http/route';
import type { Services } from './services';
import { healthRoutes } from './health/routes';
import { ingestRoutes } from './ingest/routes';
import { otlpRoutes } from './ingest/otlp/routes';
import { metricsRoutes } from './metrics/routes';
import { openApiRoutes } from './openapi/routes';
import { projectRoutes } from './tenancy/projects/routes';
import { promptRoutes } from './prompts/routes';
import { requestRoutes } from './requests/routes';
import { sessionRoutes } from './sessions/routes';
import { traceRoutes } from './traces/routes';

/**
 * Every route of the service, feature by feature: the one list that the app mounts and that the
 * OpenAPI document describes. A feature's `routes.ts` exports `(ctx) => RouteContract[]`.
 */
export function buildRoutes(ctx: AppContext, services: Services): RouteContract[] {
  const routes: RouteContract[] = [...healthRoutes(ctx), ...metricsRoutes(ctx), ...projectRoutes(ctx)];
  routes.push(...requestRoutes(ctx), ...traceRoutes(ctx), ...sessionRoutes(ctx), ...promptRoutes(ctx));
  routes.push(...ingestRoutes(services.ingest), ...otlpRoutes(ctx, services.ingest));
  routes.push(...openApiRoutes(() => routes, ctx.config.API_VERSION));
  return routes;
}

// Transitional: features not yet on route contracts.
export const legacyRawRouters: ((ctx: AppContext) => Router)[] = [proxyRouter];
export const legacyJsonRouters: ((ctx: AppContext) => Router)[] = [...tenancyRouters, rateLimitsRouter, webhooksRouter];
