import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';

type Filter = Pick<QueryOf<'/api/v1/traces'>, 'status' | 'name'>;

export const useTraces = (filter: Filter) =>
  useApiQuery(['traces', 'list', filter], ({ api, projectId, signal }) =>
    unwrap(
      api.GET('/api/v1/traces', {
        params: { query: { ...filter, limit: 200, ...(projectId ? { project_id: projectId } : {}) } },
        signal,
      }),
    ),
  );

/** A trace with its spans (flat) and their tree. */
export const useTrace = (id: string) =>
  useApiQuery(['traces', 'one', id], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/traces/{id}', { params: { path: { id } }, signal })),
  );
