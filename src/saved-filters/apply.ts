import type { RequestHandler } from 'express';
import type { Auth } from '../auth/middleware';
import type { Db } from '../db/knex';
import type { View } from './schemas';
import { applySavedFilter } from './service';

/**
 * Route step of every list and stats route: `saved_filter_id` is replaced by the filter's
 * parameters (explicit ones win) before the query is validated, so the view checks a saved filter
 * exactly as it checks a typed one.
 */
export function savedFilterStep(db: Db, auth: Auth, view: View): RequestHandler {
  return (req, _res, next) => {
    const query = req.query as Record<string, unknown>;
    if (typeof query.saved_filter_id !== 'string' || !query.saved_filter_id) return next();
    (async () => {
      const { projectIds } = await auth.projectScope(req.principal!, query.project_id);
      const merged = await applySavedFilter(db, req.principal!, projectIds, view, query);
      // Express 5 computes req.query from the URL; the merged one replaces it for this request.
      Object.defineProperty(req, 'query', { value: merged, configurable: true, writable: true, enumerable: true });
    })().then(() => next(), next);
  };
}
