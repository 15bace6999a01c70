import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';

export const useEvalRuns = () =>
  useApiQuery(['eval-runs', 'list'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/eval-runs', { params: { query: projectId ? { project_id: projectId } : {} }, signal })), {
    // A run in progress moves: poll while any is.
    refetchInterval: (q) => (q.state.data?.some((r) => r.status === 'running' || r.status === 'pending') ? 3000 : false),
  });
