import type { AppContext } from '../context';
import { savedFilterStep } from '../saved-filters/apply';
import { route } from '../http/route';
import {
  listRequestsQuery,
  readRequestQuery,
  requestDetailSchema,
  requestParams,
  requestRecordSchema,
} from './schemas';
import { listRequests, requireRequest } from './service';

const common = { tag: 'Requests', auth: 'read', notFound: 'Request' } as const;

/** The request log: JWT, full key or public key; scoped to the caller's project(s). */
export const requestRoutes = ({ db, auth }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/requests',
    before: [savedFilterStep(db, auth, 'requests')],
    summary: 'List logged proxy requests, newest first',
    query: listRequestsQuery,
    envelope: 'page',
    response: requestRecordSchema,
    scope: 'project',
    handler: async ({ scope, query }) => listRequests(db, scope.projectIds, query),
  }),
  route({
    ...common,
    method: 'get',
    path: '/api/v1/requests/:id',
    summary: 'Read one logged request with its bodies',
    params: requestParams,
    query: readRequestQuery,
    response: requestDetailSchema,
    scope: 'project',
    handler: async ({ scope, params }) => requireRequest(db, scope.projectIds, params.id),
  }),
];
