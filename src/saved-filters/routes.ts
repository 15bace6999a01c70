import type { AppContext } from '../context';
import { route } from '../http/route';
import { deletedSchema } from '../http/schemas';
import {
  createSavedFilterBody,
  listSavedFiltersQuery,
  savedFilterParams,
  savedFilterSchema,
  updateSavedFilterBody,
} from './schemas';
import { createSavedFilter, deleteSavedFilter, getSavedFilter, listSavedFilters, updateSavedFilter } from './service';

const common = { tag: 'Saved filters', auth: 'jwt', notFound: 'Saved filter' } as const;
const BASE = '/api/v1/saved-filters';

/**
 * /api/v1/saved-filters: JWT; private filters are their owner's, project filters everyone's to read
 * (docs/saved-filters.md).
 */
export const savedFilterRoutes = ({ db }: AppContext) => {
  return [
    route({
      ...common,
      method: 'get',
      path: BASE,
      summary: 'Your filters and the project’s',
      query: listSavedFiltersQuery,
      response: savedFilterSchema.array(),
      scope: 'project',
      handler: async ({ principal, scope, query }) => listSavedFilters(db, principal, scope.projectIds, query.view),
    }),
    route({
      ...common,
      method: 'post',
      path: BASE,
      summary: 'Save a filter of a view (private, or shared with the project by admin and editor)',
      body: createSavedFilterBody,
      status: 201,
      response: savedFilterSchema,
      scope: 'project',
      handler: async ({ principal, scope, body }) => createSavedFilter(db, principal, scope, body),
    }),
    route({
      ...common,
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'Read a saved filter',
      params: savedFilterParams,
      response: savedFilterSchema,
      scope: 'organization',
      handler: async ({ principal, scope, params }) => getSavedFilter(db, principal, scope.projectIds, params.id),
    }),
    route({
      ...common,
      method: 'patch',
      path: `${BASE}/:id`,
      summary: 'Change a saved filter (its owner, or admin and editor for a project filter)',
      params: savedFilterParams,
      body: updateSavedFilterBody,
      response: savedFilterSchema,
      scope: 'organization',
      handler: async ({ principal, scope, params, body }) =>
        updateSavedFilter(db, principal, scope.projectIds, params.id, body),
    }),
    route({
      ...common,
      method: 'delete',
      path: `${BASE}/:id`,
      summary: 'Delete a saved filter (same rule)',
      params: savedFilterParams,
      response: deletedSchema,
      scope: 'organization',
      handler: async ({ principal, scope, params }) => deleteSavedFilter(db, principal, scope.projectIds, params.id),
    }),
  ];
};
