import { unwrapPage } from '../../../api/client';
import { inProject, useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';

export const useFindings = (filter: Pick<QueryOf<'/api/v1/security/findings'>, 'status' | 'min_severity'>) =>
  useApiQuery(['security', 'findings', filter], ({ api, projectId, signal }) =>
    unwrapPage(api.GET('/api/v1/security/findings', { params: { query: { ...filter, limit: 200, ...inProject(projectId) } }, signal })).then((p) => p.data),
  );
