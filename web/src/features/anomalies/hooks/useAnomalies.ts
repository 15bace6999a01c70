import { unwrapPage } from '../../../api/client';
import { inProject, useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';

export const useAnomalies = (filter: Pick<QueryOf<'/api/v1/anomalies'>, 'status'>) =>
  useApiQuery(['anomalies', 'list', filter], ({ api, projectId, signal }) =>
    unwrapPage(api.GET('/api/v1/anomalies', { params: { query: { ...filter, limit: 200, ...inProject(projectId) } }, signal })).then((p) => p.data),
  );
