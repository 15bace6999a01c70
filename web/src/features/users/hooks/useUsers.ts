import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';
import { requestStats } from '../../../api/stats';

export const useEndUsers = () =>
  useApiQuery(['users', 'list'], ({ api, projectId, signal }) =>
    unwrap(
      api.GET('/api/v1/users', {
        params: { query: { limit: 200, ...(projectId ? { project_id: projectId } : {}) } },
        signal,
      }),
    ),
  );

/** One end user: spend over time, limits, top models, latest requests and sessions. */
export const useEndUser = (id: string) =>
  useApiQuery(['users', 'one', id], async ({ api, projectId, signal }) => {
    const u = await unwrap(
      api.GET('/api/v1/users/{id}', {
        params: { path: { id }, query: projectId ? { project_id: projectId } : {} },
        signal,
      }),
    );
    return { ...u, stats: requestStats(u.stats) };
  });
