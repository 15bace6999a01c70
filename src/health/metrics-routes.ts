import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../context';
import { HttpError } from '../http/errors';
import { route } from '../http/route';
import { outboxStats } from './queries';

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * GET /metrics: Prometheus text (docs/metrics.md); behind `METRICS_TOKEN` when it is set. Here, with
 * /health, rather than in src/metrics/: that is the kernel's registry, which the context names.
 */
export const metricsRoutes = (ctx: AppContext) => [
  route({
    method: 'get',
    path: '/metrics',
    tag: 'Metrics',
    summary: 'Prometheus metrics of this process',
    description: 'When METRICS_TOKEN is set, send `Authorization: Bearer <METRICS_TOKEN>`.',
    auth: 'none',
    envelope: 'raw',
    errors: { 401: 'METRICS_TOKEN is set and the bearer token does not match' },
    rawResponses: {
      200: { description: 'Prometheus text exposition format 0.0.4', contentType: 'text/plain', schema: z.string() },
    },
    handler: async ({ req, res }) => {
      const token = ctx.config.METRICS_TOKEN;
      if (token) {
        const m = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
        if (!m || !sameSecret(m[1]!, token)) {
          throw new HttpError(
            401,
            'unauthorized',
            'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>',
            {},
            { 'www-authenticate': 'Bearer' },
          );
        }
      }
      // The outbox is shared by every process, so any process can report its backlog.
      const outbox = await outboxStats(ctx.db).catch(() => null);
      if (outbox) {
        ctx.metrics.outboxBacklog.set(outbox.backlog);
        ctx.metrics.outboxLag.set(outbox.lagSeconds);
      }
      res.setHeader('content-type', ctx.metrics.registry.contentType);
      res.send(await ctx.metrics.registry.metrics());
    },
  }),
];
