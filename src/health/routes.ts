import { z } from 'zod';
import type { AppContext } from '../context';
import { pingDb } from '../db/knex';
import { route } from '../http/route';
import { pingTemporal } from '../temporal/ping';

const check = z.enum(['ok', 'unavailable']);
const healthSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  db: check,
  temporal: check,
  error: z.string().optional(),
});

const probe = (fn: () => Promise<unknown>) =>
  fn().then(
    () => 'ok' as const,
    () => 'unavailable' as const,
  );

/** GET /health: no auth; 200 when PostgreSQL and Temporal answer, 503 naming the failing part otherwise. */
export const healthRoutes = (ctx: AppContext) => [
  route({
    method: 'get',
    path: '/health',
    tag: 'Health',
    summary: 'Liveness and readiness: PostgreSQL and Temporal',
    auth: 'none',
    envelope: 'raw',
    rawResponses: {
      200: {
        description: 'Both dependencies answer',
        schema: healthSchema,
        example: { status: 'ok', db: 'ok', temporal: 'ok' },
      },
      503: {
        description: 'A dependency is unavailable (named in `error`)',
        schema: healthSchema,
        example: { status: 'unavailable', db: 'ok', temporal: 'unavailable', error: 'Unavailable: temporal' },
      },
    },
    handler: async ({ res }) => {
      const [db, temporal] = await Promise.all([
        probe(() => pingDb(ctx.db)),
        probe(() => pingTemporal(ctx.temporal.settings.address, ctx.temporal.settings.namespace)),
      ]);
      const ok = db === 'ok' && temporal === 'ok';
      const failing = [db !== 'ok' && 'db', temporal !== 'ok' && 'temporal'].filter(Boolean);
      res
        .status(ok ? 200 : 503)
        .setHeader('cache-control', 'no-store')
        .json(
          ok
            ? { status: 'ok', db, temporal }
            : { status: 'unavailable', db, temporal, error: `Unavailable: ${failing.join(', ')}` },
        );
    },
  }),
];
