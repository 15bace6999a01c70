import type { paths } from '../../../api/schema';
import { unwrap } from '../../../api/client';
import { useApiMutation } from '../../../api/mutation';
import { inProject, useApiQuery } from '../../../api/query';

export const useDatasets = () =>
  useApiQuery(['datasets', 'list'], ({ api, projectId, signal }) =>
    unwrap(api.GET('/api/v1/datasets', { params: { query: inProject(projectId) }, signal })),
  );

export const useDataset = (id: string) =>
  useApiQuery(['datasets', 'one', id], ({ api, signal }) =>
    unwrap(api.GET('/api/v1/datasets/{id}', { params: { path: { id } }, signal })),
  );

/** The items at a version (default the latest), up to 1,000. */
export const useDatasetItems = (id: string, version?: string) =>
  useApiQuery(['datasets', 'items', id, version ?? 'latest'], ({ api, signal }) =>
    unwrap(
      api.GET('/api/v1/datasets/{id}/items', {
        params: { path: { id }, query: { limit: 1000, ...(version ? { version } : {}) } },
        signal,
      }),
    ),
  );

/** The dataset's versions, newest first, with what each changed (nothing is fetched without an id). */
export const useDatasetVersions = (id: string) =>
  useApiQuery(
    ['datasets', 'versions', id],
    ({ api, signal }) => unwrap(api.GET('/api/v1/datasets/{id}/versions', { params: { path: { id } }, signal })),
    { enabled: Boolean(id) },
  );

type Json<P extends keyof paths, M extends 'post' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
export type DatasetBody = Json<'/api/v1/datasets', 'post'>;
export type DatasetPatch = Json<'/api/v1/datasets/{id}', 'patch'>;
export type ItemBody = Json<'/api/v1/datasets/{id}/items', 'post'>['items'][number];
export type ProductionBody = Json<'/api/v1/datasets/{id}/items/from-production', 'post'>;

export const useCreateDataset = () =>
  useApiMutation((api, body: DatasetBody) => unwrap(api.POST('/api/v1/datasets', { body })), {
    invalidates: ['datasets'],
    success: 'Dataset created',
  });

export const useUpdateDataset = (id: string, projectId: string) =>
  useApiMutation(
    (api, body: DatasetPatch) =>
      unwrap(api.PATCH('/api/v1/datasets/{id}', { params: { path: { id }, query: { project_id: projectId } }, body })),
    { invalidates: ['datasets'], success: 'Dataset saved' },
  );

/** Adds or updates items (an item's id upserts): one new version. */
export const useUpsertItems = (id: string, projectId: string) =>
  useApiMutation(
    (api, items: ItemBody[]) =>
      unwrap(
        api.POST('/api/v1/datasets/{id}/items', {
          params: { path: { id }, query: { project_id: projectId } },
          body: { items },
        }),
      ),
    { invalidates: ['datasets'] },
  );

/** Archives an item: a new version; older versions keep it. */
export const useArchiveItem = (id: string, projectId: string) =>
  useApiMutation(
    (api, itemId: string) =>
      unwrap(
        api.DELETE('/api/v1/datasets/{id}/items/{itemId}', {
          params: { path: { id, itemId }, query: { project_id: projectId } },
        }),
      ),
    { invalidates: ['datasets'], success: 'Item deleted' },
  );

/** A CSV (header row) or JSON Lines file, sent as it is: refused rows come back by row number. */
export const useUploadItems = (id: string, projectId: string) =>
  useApiMutation(
    (api, v: { text: string; format: 'csv' | 'jsonl'; split?: string }) =>
      unwrap(
        api.POST('/api/v1/datasets/{id}/items/upload', {
          params: { path: { id }, query: { project_id: projectId, ...(v.split ? { split: v.split } : {}) } },
          body: v.text,
          bodySerializer: (b: unknown) => String(b),
          headers: { 'content-type': v.format === 'csv' ? 'text/csv' : 'application/x-ndjson' },
        }),
      ),
    { invalidates: ['datasets'] },
  );

/** Items from logged requests matching a filter (the newest, or a random sample). */
export const useFromProduction = (id: string, projectId: string) =>
  useApiMutation(
    (api, body: ProductionBody) =>
      unwrap(
        api.POST('/api/v1/datasets/{id}/items/from-production', {
          params: { path: { id }, query: { project_id: projectId } },
          body,
        }),
      ),
    { invalidates: ['datasets'] },
  );
