import { unwrap } from '../../../api/client';
import { inProject, useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';

export const useRecommendations = (filter: Pick<QueryOf<'/api/v1/recommendations'>, 'status'>) =>
  useApiQuery(['recommendations', 'list', filter], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/recommendations', { params: { query: { ...filter, ...inProject(projectId) } }, signal })),
  );
