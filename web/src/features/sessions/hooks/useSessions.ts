import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';

export const useSessionList = () =>
  useApiQuery(['sessions', 'list'], ({ api, projectId, signal }) =>
    unwrap(
      api.GET('/api/v1/sessions', {
        params: { query: { limit: 200, ...(projectId ? { project_id: projectId } : {}) } },
        signal,
      }),
    ),
  );

/** A session with its traces (with input and output) and calls. */
export const useSessionDetail = (id: string) =>
  useApiQuery(['sessions', 'one', id], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/sessions/{id}', { params: { path: { id }, query: { include_bodies: 'true' } }, signal })),
  );
