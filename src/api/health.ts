import { Router } from 'express';
import type { AppContext } from '../context';
import { pingDb } from '../db/knex';
import { pingTemporal } from '../temporal/client';

type Check = 'ok' | 'unavailable';

async function check(fn: () => Promise<unknown>): Promise<Check> {
  try {
    await fn();
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

/** GET /health: no auth; 200 when PostgreSQL and Temporal answer, 503 naming the failing part otherwise. */
export function healthRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const [db, temporal] = await Promise.all([check(() => pingDb(ctx.db)), check(() => pingTemporal(ctx.temporal))]);
    const ok = db === 'ok' && temporal === 'ok';
    const failing = [db !== 'ok' && 'db', temporal !== 'ok' && 'temporal'].filter(Boolean);
    res
      .status(ok ? 200 : 503)
      .setHeader('cache-control', 'no-store')
      .json(ok ? { status: 'ok', db, temporal } : { status: 'unavailable', db, temporal, error: `Unavailable: ${failing.join(', ')}` });
  });
  return router;
}
