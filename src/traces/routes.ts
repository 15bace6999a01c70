import type { AppContext } from '../context';
import { savedFilterStep } from '../saved-filters/apply';
import { route } from '../http/route';
import { traceDetailSchema, traceListQuery, traceParams, traceSummarySchema } from './schemas';
import { listTraces, requireTrace } from './service';

const common = { tag: 'Traces', auth: 'read', notFound: 'Trace' } as const;

/** /api/v1/traces: JWT or API key (public keys included), scoped to the caller's project(s). */
export const traceRoutes = ({ db, auth }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/traces',
    before: [savedFilterStep(db, auth, 'traces')],
    summary: 'List traces, newest first',
    query: traceListQuery,
    envelope: 'page',
    response: traceSummarySchema,
    scope: 'project',
    handler: async ({ scope, query }) => listTraces(db, scope.projectIds, query),
  }),
  route({
    ...common,
    method: 'get',
    path: '/api/v1/traces/:id',
    summary: 'Read one trace with its spans',
    params: traceParams,
    query: traceListQuery.pick({ project_id: true }),
    response: traceDetailSchema,
    scope: 'project',
    handler: async ({ scope, params }) => requireTrace(db, scope.projectIds, params.id),
  }),
];
