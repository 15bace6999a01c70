import { unwrap } from '../../../api/client';
import { inProject, useApiQuery } from '../../../api/query';

export const useExperiments = () =>
  useApiQuery(['experiments', 'list'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/experiments', { params: { query: inProject(projectId) }, signal })));

/** 2–5 experiments side by side, the first as the baseline; nothing is fetched for fewer than 2. */
export const useComparison = (ids: string[]) =>
  useApiQuery(['experiments', 'compare', ids], ({ api, signal }) => unwrap(api.GET('/api/v1/experiments/compare', { params: { query: { ids: ids.join(',') } }, signal })), { enabled: ids.length >= 2 });
