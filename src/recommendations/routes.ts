import type { AppContext } from '../context';
import { route } from '../http/route';
import {
  listRecommendationsQuery,
  readRecommendationQuery,
  recommendationParams,
  recommendationSchema,
} from './schemas';
import { dismissOne, list, read } from './service';

const common = { tag: 'Recommendations', auth: 'read', notFound: 'Recommendation' } as const;

/** /api/v1/recommendations: JWT or API key; dismissing needs a full key or admin/editor (docs/recommendations.md). */
export const recommendationRoutes = ({ db }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/recommendations',
    summary: 'List recommendations, largest estimated monthly saving first',
    query: listRecommendationsQuery,
    response: recommendationSchema.array(),
    scope: 'project',
    handler: async ({ scope, query }) => list(db, scope.projectIds, query),
  }),
  route({
    ...common,
    method: 'get',
    path: '/api/v1/recommendations/:id',
    summary: 'Read one recommendation with its evidence',
    params: recommendationParams,
    query: readRecommendationQuery,
    response: recommendationSchema,
    scope: 'project',
    handler: async ({ scope, params }) => read(db, scope.projectIds, params.id),
  }),
  route({
    ...common,
    method: 'post',
    path: '/api/v1/recommendations/:id/dismiss',
    summary: 'Dismiss a recommendation (it comes back only if its saving doubles)',
    write: true,
    params: recommendationParams,
    query: readRecommendationQuery,
    response: recommendationSchema,
    scope: 'project',
    handler: async ({ principal, scope, params }) => dismissOne(db, principal, scope.projectIds, params.id),
  }),
];
