import { unwrap } from '../../../api/client';
import { inProject, useApiQuery } from '../../../api/query';

export const useDatasets = () =>
  useApiQuery(['datasets', 'list'], ({ api, projectId, signal }) => unwrap(api.GET('/api/v1/datasets', { params: { query: inProject(projectId) }, signal })));

export const useDataset = (id: string) =>
  useApiQuery(['datasets', 'one', id], ({ api, signal }) => unwrap(api.GET('/api/v1/datasets/{id}', { params: { path: { id } }, signal })));

/** The items at the latest version (up to 1,000). */
export const useDatasetItems = (id: string) =>
  useApiQuery(['datasets', 'items', id], ({ api, signal }) => unwrap(api.GET('/api/v1/datasets/{id}/items', { params: { path: { id }, query: { limit: 1000 } }, signal })));
