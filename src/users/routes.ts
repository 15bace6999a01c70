import type { AppContext } from '../context';
import { savedFilterStep } from '../saved-filters/apply';
import { route } from '../http/route';
import type { AnalyticsStore } from '../analytics/store';
import { endUserDetailSchema, endUserSchema, userDetailQuery, userListQuery, userParams } from './schemas';
import { listUsers, userDetail } from './service';

const common = { tag: 'Users', auth: 'read', notFound: 'End user' } as const;

/** /api/v1/users: the end users of the caller's project(s), seen through x-service-user-id and trace user_id. */
export const userRoutes = ({ db, auth }: AppContext, analytics: AnalyticsStore) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/users',
    before: [savedFilterStep(db, auth, 'users')],
    summary: 'List end users with their totals, top models and current rate-limit usage',
    query: userListQuery,
    envelope: 'page',
    response: endUserSchema,
    scope: 'project',
    handler: async ({ scope, query }) => listUsers(analytics, scope.projectIds, query),
  }),
  route({
    ...common,
    method: 'get',
    path: '/api/v1/users/:id',
    summary: 'One end user: totals, a time series, the latest requests and sessions',
    params: userParams,
    query: userDetailQuery,
    response: endUserDetailSchema,
    scope: 'project',
    handler: async ({ scope, params, query }) => userDetail(analytics, scope.projectIds, params.id, query),
  }),
];
