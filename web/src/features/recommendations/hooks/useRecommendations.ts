import { unwrap } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';
import type { QueryOf } from '../../../api/types';

export const useRecommendations = (filter: Pick<QueryOf<'/api/v1/recommendations'>, 'status'>) =>
  useApiQuery(['recommendations', 'list', filter], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/recommendations', { params: { query: { ...filter, ...inProject(projectId) } }, signal })),
  );

/** One recommendation with its evidence. */
export const useRecommendation = (id: string) =>
  useApiQuery(['recommendations', 'one', id], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/recommendations/{id}', { params: { path: { id } }, signal })),
  );

/** Dismiss: it comes back only if its saving doubles. */
export const useDismissRecommendation = () =>
  useApiMutation(
    (api, id: string) => unwrap(api.POST('/api/v1/recommendations/{id}/dismiss', { params: { path: { id } } })),
    { invalidates: ['recommendations'], success: 'Recommendation dismissed' },
  );
