import type { AppContext } from '../context';
import { route } from '../http/route';
import {
  findingParams,
  findingSchema,
  listFindingsQuery,
  readFindingQuery,
  summaryQuery,
  summarySchema,
  updateFindingBody,
} from './schemas';
import { changeStatus, list, read, summary } from './service';

const common = { tag: 'Security', auth: 'jwt', notFound: 'Security finding' } as const;
const BASE = '/api/v1/security';

/** /api/v1/security: JWT; every role reads, admin and editor change a finding's status (docs/security.md). */
export const securityRoutes = ({ db }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: `${BASE}/findings`,
    summary: 'List security findings (leaked secrets, PII, prompt injection), most recently seen first',
    query: listFindingsQuery,
    envelope: 'page',
    response: findingSchema,
    scope: 'project',
    handler: async ({ scope, query }) => list(db, scope.projectIds, query),
  }),
  route({
    ...common,
    method: 'get',
    path: `${BASE}/findings/:id`,
    summary: 'Read one finding: where it was first and last seen, its masked excerpt and occurrences',
    params: findingParams,
    query: readFindingQuery,
    response: findingSchema,
    scope: 'project',
    handler: async ({ scope, params }) => read(db, scope.projectIds, params.id),
  }),
  route({
    ...common,
    method: 'patch',
    path: `${BASE}/findings/:id`,
    summary: 'Resolve, dismiss or reopen a finding',
    roles: ['admin', 'editor'],
    params: findingParams,
    query: readFindingQuery,
    body: updateFindingBody,
    response: findingSchema,
    scope: 'project',
    handler: async ({ principal, scope, params, body }) =>
      changeStatus(db, principal, scope.projectIds, params.id, body.status),
  }),
  route({
    ...common,
    method: 'get',
    path: `${BASE}/summary`,
    summary: 'Counts of findings by kind, severity and status over a range',
    query: summaryQuery,
    response: summarySchema,
    scope: 'project',
    handler: async ({ scope, query }) => summary(db, scope.projectIds, query),
  }),
];
