import type { AppContext } from './context';
import type { RouteContract } from './http/route';
import type { Services } from './services';
import { alertRoutes } from './alerts/routes';
import { anomalyRoutes } from './anomalies/routes';
import { recommendationRoutes } from './recommendations/routes';
import { securityRoutes } from './security/routes';
import { scoreConfigRoutes } from './score-configs/routes';
import { scoreRoutes } from './scores/routes';
import { evaluatorRoutes } from './evaluators/routes';
import { evalRunRoutes } from './eval-runs/routes';
import { playgroundRoutes } from './playground/routes';
import { datasetRoutes } from './datasets/routes';
import { experimentRoutes } from './experiments/routes';
import { humanEvalRoutes } from './human-evals/routes';
import { promptExperimentRoutes } from './prompt-experiments/routes';
import { savedFilterRoutes } from './saved-filters/routes';
import { shareRoutes } from './shares/routes';
import { exportRoutes } from './exports/routes';
import { webRoutes } from './web/routes';
import { auditRoutes } from './audit/routes';
import { healthRoutes } from './health/routes';
import { ingestRoutes } from './ingest/routes';
import { otlpRoutes } from './ingest/otlp/routes';
import { keyRoutes } from './keys/routes';
import { metricsRoutes } from './health/metrics-routes';
import { openApiRoutes } from './openapi/routes';
import { promptRoutes } from './prompts/routes';
import { proxyRoutes } from './proxy/routes';
import { rateLimitRoutes } from './rate-limits/routes';
import { requestRoutes } from './requests/routes';
import { sessionRoutes } from './sessions/routes';
import { statsRoutes } from './stats/routes';
import { userRoutes } from './users/routes';
import { tenancyRoutes } from './tenancy/routes';
import { traceRoutes } from './traces/routes';
import { webhookRoutes } from './webhooks/routes';
import { eventTypeRoutes } from './events/routes';

/**
 * Every route of the service, feature by feature: the one list that the app mounts and that the
 * OpenAPI document describes. A feature's `routes.ts` exports `(ctx) => RouteContract[]`.
 */
export function buildRoutes(ctx: AppContext, services: Services): RouteContract[] {
  const routes: RouteContract[] = [...healthRoutes(ctx), ...metricsRoutes(ctx)];
  routes.push(...tenancyRoutes(ctx), ...keyRoutes(ctx), ...auditRoutes(ctx), ...rateLimitRoutes(ctx));
  routes.push(
    ...requestRoutes(ctx),
    ...statsRoutes(ctx, services.analytics),
    ...userRoutes(ctx, services.analytics),
    ...anomalyRoutes(ctx),
    ...recommendationRoutes(ctx),
    ...securityRoutes(ctx),
    ...scoreConfigRoutes(ctx),
    ...scoreRoutes(ctx),
    ...evaluatorRoutes(ctx),
    ...evalRunRoutes(ctx),
    ...playgroundRoutes(ctx),
    ...datasetRoutes(ctx),
    ...experimentRoutes(ctx),
    ...humanEvalRoutes(ctx),
    ...promptExperimentRoutes(ctx),
    ...savedFilterRoutes(ctx),
    ...traceRoutes(ctx),
    ...sessionRoutes(ctx),
    ...promptRoutes(ctx),
  );
  routes.push(
    ...ingestRoutes(services.ingest),
    ...otlpRoutes(services.ingest, ctx.auth),
    ...webhookRoutes(ctx),
    ...proxyRoutes(ctx, services.proxy),
  );
  routes.push(...eventTypeRoutes(ctx));
  routes.push(
    ...alertRoutes(ctx, services.analytics),
    ...shareRoutes(ctx, services.analytics),
    ...exportRoutes(ctx),
    ...webRoutes(ctx),
  );
  routes.push(...openApiRoutes(() => routes, ctx.config.API_VERSION));
  return routes;
}
