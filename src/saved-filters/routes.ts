import type { AppContext } from '../context';
import { route } from '../http/route';
import { deletedSchema } from '../http/schemas';
import { createSavedFilterBody, listSavedFiltersQuery, savedFilterParams, savedFilterSchema, updateSavedFilterBody } from './schemas';
import { createSavedFilter, deleteSavedFilter, getSavedFilter, listSavedFilters, updateSavedFilter } from './service';

const common = { tag: 'Saved filters', auth: 'jwt', notFound: 'Saved filter' } as const;
const BASE = '/api/v1/saved-filters';

/** /api/v1/saved-filters: JWT; private filters are their owner's, project filters everyone's to read (docs/saved-filters.md). */
export const savedFilterRoutes = ({ db, auth }: AppContext) => {
  const scope = async (principal: Parameters<typeof auth.projectScope>[0], projectId: unknown) => auth.projectScope(principal, projectId);
  return [
    route({ ...common, method: 'get', path: BASE, summary: 'Your filters and the project’s', query: listSavedFiltersQuery, response: savedFilterSchema.array(), handler: async ({ principal, query }) => listSavedFilters(db, principal, (await scope(principal, query.project_id)).projectIds, query.view) }),
    route({ ...common, method: 'post', path: BASE, summary: 'Save a filter of a view (private, or shared with the project by admin and editor)', body: createSavedFilterBody, status: 201, response: savedFilterSchema, handler: async ({ principal, body }) => createSavedFilter(db, principal, await scope(principal, body.project_id), body) }),
    route({ ...common, method: 'get', path: `${BASE}/:id`, summary: 'Read a saved filter', params: savedFilterParams, response: savedFilterSchema, handler: async ({ principal, params }) => getSavedFilter(db, principal, (await scope(principal, undefined)).projectIds, params.id) }),
    route({ ...common, method: 'patch', path: `${BASE}/:id`, summary: 'Change a saved filter (its owner, or admin and editor for a project filter)', params: savedFilterParams, body: updateSavedFilterBody, response: savedFilterSchema, handler: async ({ principal, params, body }) => updateSavedFilter(db, principal, (await scope(principal, undefined)).projectIds, params.id, body) }),
    route({ ...common, method: 'delete', path: `${BASE}/:id`, summary: 'Delete a saved filter (same rule)', params: savedFilterParams, response: deletedSchema, handler: async ({ principal, params }) => deleteSavedFilter(db, principal, (await scope(principal, undefined)).projectIds, params.id) }),
  ];
};
