import type { AppContext } from '../context';
import { route } from '../http/route';
import { anomalyParams, anomalySchema, listAnomaliesQuery, readAnomalyQuery, updateAnomalyBody } from './schemas';
import { changeStatus, list, read } from './service';

const common = { tag: 'Anomalies', auth: 'read', notFound: 'Anomaly' } as const;

/**
 * /api/v1/anomalies: JWT or API key; public keys and viewers read, full keys and editors change status
 * (docs/anomalies.md).
 */
export const anomalyRoutes = ({ db }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: '/api/v1/anomalies',
    summary: 'List anomalies the detector found, most recently seen first',
    query: listAnomaliesQuery,
    envelope: 'page',
    response: anomalySchema,
    scope: 'project',
    handler: async ({ scope, query }) => list(db, scope.projectIds, query),
  }),
  route({
    ...common,
    method: 'get',
    path: '/api/v1/anomalies/:id',
    summary: 'Read one anomaly with its expected range, score and contributing requests',
    params: anomalyParams,
    query: readAnomalyQuery,
    response: anomalySchema,
    scope: 'project',
    handler: async ({ scope, params }) => read(db, scope.projectIds, params.id),
  }),
  route({
    ...common,
    method: 'patch',
    path: '/api/v1/anomalies/:id',
    summary: 'Acknowledge or resolve an anomaly',
    write: true,
    params: anomalyParams,
    query: readAnomalyQuery,
    body: updateAnomalyBody,
    response: anomalySchema,
    scope: 'project',
    handler: async ({ principal, scope, params, body }) =>
      changeStatus(db, principal, scope.projectIds, params.id, body.status),
  }),
];
