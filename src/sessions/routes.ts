import type { AppContext } from '../context';
import { savedFilterStep } from '../saved-filters/apply';
import { route } from '../http/route';
import {
  sessionDetailSchema,
  sessionListQuery,
  sessionReadQuery,
  sessionParams,
  sessionSummarySchema,
} from './schemas';
import { listSessions, requireSession } from './service';

/**
 * The spec lists Sessions among the JWT-only groups (public keys are accepted only on the dual-auth
 * read endpoints), so these take a user token.
 */
const common = { tag: 'Sessions', auth: 'jwt', notFound: 'Session' } as const;

export const sessionRoutes = ({ db, auth }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/sessions',
    before: [savedFilterStep(db, auth, 'sessions')],
    summary: 'List sessions, most recent activity first',
    query: sessionListQuery,
    envelope: 'page',
    response: sessionSummarySchema,
    scope: 'project',
    handler: async ({ scope, query }) => listSessions(db, scope.projectIds, query),
  }),
  route({
    ...common,
    method: 'get',
    path: '/api/v1/sessions/:id',
    summary: 'Read one session with its traces and requests',
    params: sessionParams,
    query: sessionReadQuery,
    response: sessionDetailSchema,
    scope: 'project',
    handler: async ({ scope, params, query }) =>
      requireSession(db, scope.projectIds, params.id, query.include_bodies ?? false),
  }),
];
