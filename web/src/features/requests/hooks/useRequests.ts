import { unwrap, unwrapPage } from '../../../api/client';
import { useApiPages, useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';

type Filter = Omit<QueryOf<'/api/v1/requests'>, 'cursor' | 'limit' | 'project_id'>;

/** The request log, newest first, 200 rows a page (keyset cursor). */
export const useRequestPages = (filter: Filter) =>
  useApiPages(['requests', 'list', filter], ({ api, projectId, cursor, signal }) =>
    unwrapPage(api.GET('/api/v1/requests', { params: { query: { ...filter, limit: 200, ...(cursor ? { cursor } : {}), ...(projectId ? { project_id: projectId } : {}) } }, signal })),
  );

/** One request with its bodies (as stored, masked) and scores. */
export const useRequest = (id: string) =>
  useApiQuery(['requests', 'one', id], ({ api, signal }) => unwrap(api.GET('/api/v1/requests/{id}', { params: { path: { id } }, signal })));
