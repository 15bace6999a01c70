import type { AppContext } from '../context';
import { route } from '../http/route';
import { deletedSchema } from '../http/schemas';
import {
  configParams,
  configQuery,
  configSchema,
  createConfigBody,
  listConfigsQuery,
  updateConfigBody,
} from './schemas';
import { createConfig, deleteConfig, getConfig, listConfigs, updateConfig } from './service';

const WRITERS = ['admin', 'editor'] as const;
const common = { tag: 'Score configs', auth: 'jwt', notFound: 'Score config' } as const;
const BASE = '/api/v1/score-configs';

/** /api/v1/score-configs: JWT; every role reads, admin and editor write (docs/scores.md). */
export const scoreConfigRoutes = ({ db }: AppContext) => [
  route({
    ...common,
    method: 'get',
    path: BASE,
    summary: 'List score configs (archived ones with include_archived=true)',
    query: listConfigsQuery,
    response: configSchema.array(),
    scope: 'project',
    handler: async ({ scope, query }) => listConfigs(db, scope, query),
  }),
  route({
    ...common,
    method: 'post',
    path: BASE,
    summary: 'Create a score config: numeric (min/max), categorical (categories) or boolean',
    roles: WRITERS,
    body: createConfigBody,
    status: 201,
    response: configSchema,
    scope: 'project',
    handler: async ({ principal, scope, body }) => createConfig(db, principal, scope, body),
  }),
  route({
    ...common,
    method: 'get',
    path: `${BASE}/:id`,
    summary: 'Read a score config',
    params: configParams,
    query: configQuery,
    response: configSchema,
    scope: 'project',
    handler: async ({ scope, params }) => getConfig(db, scope.projectIds, params.id),
  }),
  route({
    ...common,
    method: 'patch',
    path: `${BASE}/:id`,
    summary: 'Rename, describe or archive a score config; bounds and categories only while unused',
    roles: WRITERS,
    params: configParams,
    query: configQuery,
    body: updateConfigBody,
    response: configSchema,
    scope: 'project',
    handler: async ({ principal, scope, params, body }) =>
      updateConfig(db, principal, scope.projectIds, params.id, body),
  }),
  route({
    ...common,
    method: 'delete',
    path: `${BASE}/:id`,
    summary: 'Delete a score config no score uses (one in use is archived instead: 409)',
    roles: WRITERS,
    params: configParams,
    query: configQuery,
    response: deletedSchema,
    scope: 'project',
    handler: async ({ principal, scope, params }) => deleteConfig(db, principal, scope.projectIds, params.id),
  }),
];
