import type { AppContext } from '../context';
import { savedFilterStep } from '../saved-filters/apply';
import { route } from '../http/route';
import type { AnalyticsStore } from '../analytics/store';
import { statsAnswerSchema, statsQuery } from './schemas';
import { stats } from './service';

/** /api/v1/stats: JWT or API key (public keys included), over the caller's project(s). */
export const statsRoutes = ({ db, auth }: AppContext, analytics: AnalyticsStore) => [
  route({
    tag: 'Stats',
    auth: 'read',
    method: 'get',
    path: '/api/v1/stats',
    before: [savedFilterStep(db, auth, 'stats')],
    summary: 'Totals, a zero-filled time series and a breakdown of the request log, traces or spans',
    description:
      'One filter language with /requests (docs/analytics.md). ' +
      'Whole-hour ranges with at most one dimension filtered or grouped come ' +
      'from hourly rollups (`source: rollup`); anything else from the raw rows.',
    query: statsQuery,
    response: statsAnswerSchema,
    scope: 'project',
    handler: async ({ scope, query }) => stats(analytics, scope.projectIds, query),
  }),
];
