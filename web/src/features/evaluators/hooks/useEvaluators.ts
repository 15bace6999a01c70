import { unwrap } from '../../../api/client';
import { useApiQuery } from '../../../api/query';

export const useEvaluators = () =>
  useApiQuery(['evaluators', 'list'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/evaluators', { params: { query: projectId ? { project_id: projectId } : {} }, signal })));
